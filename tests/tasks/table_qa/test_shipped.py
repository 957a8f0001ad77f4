"""The shipped table-QA model (models/table-qa): `fortap ask` answers with it by default, on a
HiTab table JSON and on a real workbook, says so, and `--json` parses; it stores at most 25 MB
beyond the MiniLM it names."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from fortap.cli import app
from fortap.tasks.table_qa.ask import SHIPPED

BOOK = "hitab/annotation_examples/Sentence Revision Alignment Conversion-StatCan/10.xlsx"


def test_the_folder_stores_only_the_difference_from_minilm():
    size = sum(f.stat().st_size for f in SHIPPED.rglob("*") if f.suffix != ".md")
    assert size <= 25e6
    config = json.loads((SHIPPED / "encoder" / "config.json").read_text())
    assert config["words_from"] == "minilm-bf16"


def test_ask_uses_the_shipped_model_on_a_hitab_table(data_dir):
    sample = json.loads((data_dir / "hitab" / "dev_samples.jsonl").open().readline())
    table = data_dir / "hitab" / "tables" / "raw" / f"{sample['table_id']}.json"
    found = CliRunner().invoke(app, ["ask", str(table), sample["question"]])
    assert found.exit_code == 0, found.output
    assert found.output.splitlines()[0].startswith("answer: ")
    assert "(answered by the model models/table-qa (shipped))" in found.output


def test_ask_json_on_a_real_workbook(data_dir):
    found = CliRunner().invoke(app, ["ask", str(data_dir / BOOK), "what is the total?", "--json"])
    assert found.exit_code == 0, found.output
    record = json.loads(found.output)
    assert record["source"] == "model" and record["model"] == "models/table-qa (shipped)"
    assert record["operation"] and record["cells"]
