"""fortap inside the spreadsheet: the Excel add-in's manifest (`manifest.py`; its task pane is
served by `fortap serve --addin`, `fortap.service`) and the LibreOffice Calc extension
(`oxt.py` builds it from `calc/`). `fortap addin manifest|oxt` (`cli.py`) writes them."""
