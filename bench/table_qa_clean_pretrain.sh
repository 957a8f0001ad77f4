#!/bin/bash
# Clean TUTA and ForTaP encoders for table QA: the tiny-1h recipe (models/encoders/README.md) on a
# corpus without HiTab's annotation workbooks, which hold HiTab tables (dev table 45 among them).
#
#   bash bench/table_qa_clean_pretrain.sh [WORK]      (WORK default runs/table_qa/clean)
#
# Budget: 1 hour of pretraining per encoder on one thread (training.max_minutes=60, the
# schedule paced by the clock), as the tiny-1h encoders; ingest and build-corpus take minutes.
# Each step resumes when rerun. The encoders land in models/encoders/{tuta,fortap}-tiny-1h-clean
# with pretraining_books.json (the corpus's training side), which the QA leak test reads
# (tests/tasks/table_qa/test_leak.py); then fine-tune table QA from them:
#   fortap finetune table-qa ../shared/data/hitab -o OUT --encoder tuta --checkpoint models/encoders/tuta-tiny-1h-clean
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${1:-runs/table_qa/clean}
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
mkdir -p "$WORK"
# every data folder except hitab/ (whose only workbooks are annotation_examples/)
SOURCES=$(ls -d ../shared/data/*/ | grep -v '/hitab/$')
nice -n 10 .venv/bin/fortap ingest $SOURCES -o "$WORK/tables"
nice -n 10 .venv/bin/fortap build-corpus "$WORK/tables" -o "$WORK/corpus" --no-progress
COMMON=(--config tiny --corpus "$WORK/corpus" --steps 100000 --threads 1 --no-progress
  --set objectives.mlm.weight=0.3 --set serialize.max_seq_len=128 --set data.max_tokens=128
  --set training.batch_size=16 --set training.max_minutes=60 --set training.pace_by_clock=true
  --set training.save_every=300 --set training.eval_every=2000)
nice -n 10 .venv/bin/fortap pretrain "${COMMON[@]}" --out "$WORK/tuta" \
  --objectives mlm,cell_cloze,table_context
nice -n 10 .venv/bin/fortap pretrain "${COMMON[@]}" --out "$WORK/fortap" \
  --objectives mlm,cell_cloze,table_context,nrp,ncp,formula_mlm \
  --set objectives.nrp.weight=4 --set objectives.ncp.weight=4 --set data.formula_samples_only=true
for name in tuta fortap; do
  mkdir -p "models/encoders/$name-tiny-1h-clean"
  cp "$WORK/$name/encoder/config.json" "$WORK/$name/encoder/model.safetensors" "models/encoders/$name-tiny-1h-clean/"
  .venv/bin/python - "$WORK/corpus/split.json" "models/encoders/$name-tiny-1h-clean" <<'PY'
import json, os, sys
from pathlib import Path
from fortap.tasks.table_qa.leak import BOOKS_FILE, corpus_training_books
books = corpus_training_books(sys.argv[1], Path.cwd())
rel = sorted(os.path.relpath(b, Path.cwd()) for b in books)
(Path(sys.argv[2]) / BOOKS_FILE).write_text(json.dumps(rel, indent=0) + "\n")
PY
done
