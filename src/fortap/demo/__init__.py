"""The demo: sample workbooks generated on the spot, and the pipeline run over them step by step."""
