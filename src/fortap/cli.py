"""The `fortap` command line: parses arguments and calls one `run_*` function per command.

Imports are lazy so that `fortap --help` and the light commands start fast (no torch).
Errors caused by input (`FortapError`) print one line and exit 1; anything else is a bug.
"""

from __future__ import annotations

import inspect
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from typer.core import TyperGroup

from fortap.registry import names as task_names

APP_HELP = (
    "Read spreadsheets, learn from the formulas people wrote in them, predict formulas.\n\n"
    "fortap finds the tables in .xlsx/.xlsm/.xls/.ods/.csv workbooks with their header trees "
    "(ingest), builds a pretraining corpus from their formula cells (build-corpus), pretrains a "
    "TUTA-style table encoder with ForTaP's formula objectives (pretrain), and fine-tunes and "
    "evaluates it on formula prediction beside a rule baseline (finetune, evaluate); `formula` "
    "shows how one formula is represented. `suggest` ranks formulas for a cell of your own "
    "workbook, with the value each would give, ordered by a ranker that `train-ranker` learns "
    "from workbooks; `serve` does it in a local web page.\n\n"
    "Start with `fortap demo`: the whole path on generated sample workbooks in about a minute. "
    "Each command has its own --help."
)

# The order of `fortap --help`: the research path stage by stage, then the product. A new
# command takes its place here; a name not (yet) registered is skipped.
COMMAND_ORDER = (
    "ingest",
    "formula",
    "build-corpus",
    "build-cell-types",
    "pretrain",
    "finetune",
    "evaluate",
    "check-model",
    "tune-qa",
    "release",
    "cell-types",
    "ask",
    "suggest",
    "audit",
    "recover",
    "train-ranker",
    "serve",
    "addin",
    "demo",
)


class PipelineOrder(TyperGroup):
    """Lists the commands in `COMMAND_ORDER` (any other after them, as registered), and says a
    bad command line (an unknown option, a value of the wrong type) in one line."""

    def main(self, *args, standalone_mode: bool = True, **kwargs):
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)
        # typer parses with the click it bundles, so its errors are that copy's classes
        from typer._click.exceptions import ClickException
        from typer.exceptions import Abort

        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except ClickException as err:
            ctx = getattr(err, "ctx", None)
            if type(err).__name__ != "NoArgsIsHelpError":  # the help is already shown
                hint = f" (see {ctx.command_path} --help)" if ctx is not None else ""
                print(f"error: {err.format_message()}{hint}", file=sys.stderr)
            sys.exit(err.exit_code)
        except Abort:
            print("error: aborted", file=sys.stderr)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)

    def list_commands(self, ctx) -> list[str]:
        last = len(COMMAND_ORDER)
        return sorted(
            super().list_commands(ctx),
            key=lambda name: COMMAND_ORDER.index(name) if name in COMMAND_ORDER else last,
        )


app = typer.Typer(add_completion=False, no_args_is_help=True, help=APP_HELP, cls=PipelineOrder)


def _fail_cleanly(fn):
    """Run `fn`; turn an input error into one red line and exit status 1."""
    from functools import wraps

    @wraps(fn)
    def wrapper(*args, **kwargs):
        from fortap.errors import FortapError

        try:
            return fn(*args, **kwargs)
        except FortapError as err:
            from rich.console import Console
            from rich.markup import escape

            text = f"[red]error:[/red] {escape(str(err))}"  # a formula's `[` is not markup
            Console(stderr=True).print(text, highlight=False, soft_wrap=True)
            raise typer.Exit(1) from None

    return wrapper


ThreadsOption = Annotated[
    int, typer.Option(help="Intra-op threads for torch (0 = torch's default, one per core).")
]


OverwriteOption = Annotated[
    bool,
    typer.Option(
        "--overwrite",
        help="Delete what the output folder holds and start over. Without it, a non-empty folder "
        "that is not this command's own run is refused, and the command's own run resumes.",
    ),
]


def _claim(out: Path, command: str, overwrite: bool, inputs=()) -> None:
    """Check the output folder before any work (`fortap.outputs.claim_folder`); under torchrun
    rank 0 claims it for all."""
    import os

    from fortap.outputs import claim_folder

    if os.environ.get("RANK", "0") == "0":
        claim_folder(out, command, overwrite, inputs=tuple(inputs or ()))


def _at_least(minimum: int, **options: int) -> None:
    """Refuse an option below `minimum` before any work: `--workers must be >= 1, got 0`."""
    from fortap.errors import FortapError

    for name, value in options.items():
        if value < minimum:
            raise FortapError(f"--{name.replace('_', '-')} must be >= {minimum}, got {value}")


def _set_threads(threads: int) -> None:
    """Cap torch's intra-op threads (a busy machine runs faster on fewer)."""
    if threads < 0:
        from fortap.errors import FortapError

        raise FortapError(f"--threads must be >= 0, got {threads}")
    if threads:
        import torch

        torch.set_num_threads(threads)


@app.command()
@_fail_cleanly
def demo(
    out: Annotated[Path, typer.Option("--out", "-o", help="Working folder for the demo.")] = Path(
        "runs/demo"
    ),
    overwrite: OverwriteOption = False,
) -> None:
    """Run the whole path on bundled sample workbooks and print what was found."""
    from fortap.demo.run import run_demo

    _claim(out, "demo", overwrite)
    run_demo(out)


@app.command()
@_fail_cleanly
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Workbook files or folders.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder (a rerun resumes).")],
    workers: Annotated[int, typer.Option(help="Worker processes (Ray: CPUs).")] = 1,
    engine: Annotated[str, typer.Option(help="Where tasks run: local or ray.")] = "local",
    address: Annotated[
        str | None, typer.Option(help="Ray cluster address (default: start Ray here).")
    ] = None,
    files_per_task: Annotated[int, typer.Option(help="Files per task (one shard each).")] = 16,
    overwrite: OverwriteOption = False,
    progress: Annotated[bool, typer.Option(help="Show a progress bar (the summary stays).")] = True,
) -> None:
    """Workbooks -> Table JSONL shards, with a per-file report of what was read or skipped and why.

    A rerun over the same inputs resumes; OUT holding anything else is refused unless --overwrite."""
    from fortap.ingest import run_ingest

    _at_least(1, workers=workers, files_per_task=files_per_task)
    _claim(out, "ingest", overwrite, paths)
    report = run_ingest(paths, out, workers=workers, engine=engine, address=address,
                        files_per_task=files_per_task, replace_other_run=False,
                        progress=progress, summary=True)  # fmt: skip
    if report.files_read == 0:
        raise typer.Exit(1)


@app.command()
@_fail_cleanly
def pretrain(
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Run folder (resumes if it holds checkpoints).")
    ],
    tables: Annotated[
        list[Path] | None,
        typer.Option("--tables", help="Table JSONL / HiTab JSON files or folders (repeatable)."),
    ] = None,
    corpus: Annotated[
        Path | None,
        typer.Option(help="A built corpus (fortap build-corpus): train split + dev evaluation."),
    ] = None,
    config: Annotated[
        str, typer.Option(help="Preset (tiny, small, ablation_*) or a YAML path.")
    ] = "tiny",
    objectives: Annotated[
        str | None,
        typer.Option(
            help="Comma-separated names from fortap.objectives.registry "
            "(default: the preset's, else TUTA's three)."
        ),
    ] = None,
    steps: Annotated[int | None, typer.Option(help="Updates (overrides training.steps).")] = None,
    init: Annotated[str, typer.Option(help="random or minilm.")] = "random",
    set_: Annotated[
        list[str] | None, typer.Option("--set", help="Dotted override, e.g. optim.lr=1e-4.")
    ] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
    threads: ThreadsOption = 0,
    overwrite: OverwriteOption = False,
) -> None:
    """Pretrain the table encoder (TUTA's and ForTaP's objectives); runs under torchrun too.

    A rerun resumes from OUT's checkpoints; OUT holding anything else is refused unless
    --overwrite."""
    from fortap.training.pretrain import PretrainRequest, run_pretrain

    _set_threads(threads)
    _claim(out, "pretrain", overwrite)
    names = tuple(n.strip() for n in (objectives or "").split(",") if n.strip())
    request = PretrainRequest(
        out, tuple(tables or ()), corpus, config, names, steps, init, tuple(set_ or ()), progress
    )
    run_pretrain(request)


@app.command()
@_fail_cleanly
def formula(
    text: Annotated[str | None, typer.Argument(help='One formula, e.g. "=SUM(B2:B5)/B6".')] = None,
    file: Annotated[
        Path | None, typer.Option("--file", help="A list of formulas, one per line.")
    ] = None,
    report: Annotated[
        Path | None, typer.Option("--report", help="Write the list's counts as JSON here.")
    ] = None,
    sheet: Annotated[
        str | None, typer.Option("--sheet", help="Host sheet name (decides cross-sheet).")
    ] = None,
    cell: Annotated[
        str | None, typer.Option("--cell", help="Formula cell, e.g. D7 (adds the R1C1 form).")
    ] = None,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace the --report file if it exists.")
    ] = False,
) -> None:
    """Show a formula's AST, prefix tokens, sketch, ranges and filter verdict; or run a list."""
    from fortap.formula.report import run_formula
    from fortap.outputs import check_file

    if report is not None:
        check_file(report, "--report", overwrite, ".json")

    run_formula(text, file=file, report=report, sheet=sheet, cell=cell)


@app.command("build-corpus")
@_fail_cleanly
def build_corpus(
    tables: Annotated[
        list[Path], typer.Argument(help="Table JSONL / HiTab JSON files or folders.")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Corpus folder (a rerun resumes).")],
    workers: Annotated[int, typer.Option(help="Worker processes.")] = 1,
    seed: Annotated[int, typer.Option(help="Seeds input modes and the split.")] = 0,
    tables_per_task: Annotated[
        int, typer.Option(help="Tables per task (one shard per split each).")
    ] = 64,
    split_overrides: Annotated[
        Path | None, typer.Option(help="JSON {workbook key or path: train|dev|test}.")
    ] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar and the stats.")] = True,
    engine: Annotated[str, typer.Option(help="Where tasks run: local or ray.")] = "local",
    address: Annotated[
        str | None, typer.Option(help="Ray cluster address (default: start Ray here).")
    ] = None,
    overwrite: OverwriteOption = False,
) -> None:
    """Tables -> ForTaP pretraining shards split by workbook, resumable, with a stats report.

    A rerun resumes; OUT holding anything else is refused unless --overwrite."""
    from fortap.corpus.build import run_build_corpus

    _at_least(1, workers=workers, tables_per_task=tables_per_task)
    _claim(out, "build-corpus", overwrite, tables)
    run_build_corpus(tables, out, workers, seed, tables_per_task, split_overrides, progress,
                     engine=engine, address=address)  # fmt: skip


@app.command("build-cell-types")
@_fail_cleanly
def build_cell_types(
    ingested: Annotated[
        list[Path], typer.Argument(help="`fortap ingest` folders, one per source (its name).")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Set folder (a rerun resumes).")],
    overwrite: OverwriteOption = False,
) -> None:
    """Ingested workbooks -> a cell-type set labelled from their formulas, values only.

    Writes OUT/{train,dev,test}/saus.jl.gz (split by workbook; `fortap finetune cell-types`
    reads each as a SAUS folder) and OUT/stats.json (each source's cells and classes). The label
    rules: docs/cell-types.md. A rerun resumes; OUT holding anything else is refused
    unless --overwrite."""
    from fortap.console import stdout_console
    from fortap.tasks.cell_types.formula_set import build_formula_set

    console = stdout_console()
    _claim(out, "build-cell-types", overwrite, ingested)
    stats = build_formula_set(ingested, out)
    for name, src in stats["sources"].items():
        console.print(f"{name}: {src['cells']} labelled cells ({src['share']:.1%}), "
                      f"tables train/dev/test {src['tables']['train']}/{src['tables']['dev']}/"
                      f"{src['tables']['test']}")  # fmt: skip
    console.print(f"{stats['cells']} labelled cells; wrote {out}/{{train,dev,test}}/saus.jl.gz")


FinetuneTask = StrEnum("FinetuneTask", {n: n for n in task_names("finetune")})  # type: ignore[misc]
EvaluateTask = StrEnum("EvaluateTask", {n: n for n in task_names("evaluate")})  # type: ignore[misc]
ConfigOption = Annotated[
    str | None, typer.Option("--config", help="Run-config preset (e.g. fp_paper) or YAML path.")
]
SetOption = Annotated[
    list[str] | None,
    typer.Option("--set", help="Dotted override, e.g. decoder.layers=3 (repeatable)."),
]


def _task_config(name: str, command: str, preset, overrides, flags: dict):
    """The task and its run config: defaults, `preset`, the given flags (shorthands for config
    keys), then the `--set` overrides."""

    from fortap.errors import FortapError
    from fortap.registry import task
    from fortap.tasks.run_config import load_run_config

    found = task(name)
    given = {flag: value for flag, value in flags.items() if value is not None}
    if "threads" not in found.shorthands:  # every command takes --threads (`_set_threads`)
        given.pop("threads", None)
    unknown = sorted(set(given) - set(found.shorthands))
    if unknown:
        takes = [f for f in flags if f in found.shorthands]  # this command's, in its order
        raise FortapError(
            f"{command} {name} takes no {_options(unknown)}; its options are "
            f"{_options(takes) + ', ' if takes else ''}--config, --set and --threads"
        )
    keys = [f"{found.shorthands[f]}={_flag_value(v)}" for f, v in given.items()]
    return found, load_run_config(found.config, preset, [*keys, *(overrides or [])])


def _flag_value(value) -> str:
    """A flag's value as an override's JSON: paths as text; a comma list (e.g. --curve
    0.2,0.5) stays text, and the config turns it into its tuple."""
    import json

    return json.dumps(str(value) if isinstance(value, Path) else value)


def _options(flags) -> str:
    """Parameter names as the command line spells them: `max_test` -> `--max-test`."""
    return ", ".join("--" + f.replace("_", "-") for f in flags)


@app.command()
@_fail_cleanly
def finetune(
    task: Annotated[FinetuneTask, typer.Argument(help="The task to fine-tune.")],
    tables: Annotated[
        list[Path],
        typer.Argument(
            help="formula-prediction: table JSONL / HiTab JSON files or folders; cell-types: "
            "the SAUS folder; table-qa: the HiTab folder; formula-audit: an answer key."
        ),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder (model, report).")],
    config: ConfigOption = None,
    set_: SetOption = None,
    encoder: Annotated[
        str | None,
        typer.Option(
            help="Start encoder: random (tiny), minilm, tuta or fortap (with --checkpoint), or a "
            "shipped encoder's name (models/encoders/NAME)."
        ),
    ] = None,
    checkpoint: Annotated[
        Path | None,
        typer.Option(help="Encoder folder for tuta/fortap (a pretrain run's encoder/)."),
    ] = None,
    steps: Annotated[
        int | None,
        typer.Option(
            help="Updates (defaults: formula-prediction 200, cell-types 200, table-qa 2000)."
        ),
    ] = None,
    lr: Annotated[
        float | None,
        typer.Option(
            help="Peak learning rate of the task's head (decoder or heads) and of new embedding "
            "tables (default 1e-3 in every task)."
        ),
    ] = None,
    encoder_lr: Annotated[
        float | None,
        typer.Option(
            help="Peak learning rate of the encoder (defaults: formula-prediction 1e-3, "
            "cell-types 1e-4, table-qa 5e-5)."
        ),
    ] = None,
    device: Annotated[
        str | None, typer.Option(help="Where the model trains: cpu, cuda or cuda:N (default cpu).")
    ] = None,
    corpus: Annotated[
        Path | None,
        typer.Option(help="Corpus folder whose split.json assigns each workbook (no leakage)."),
    ] = None,
    max_test: Annotated[int | None, typer.Option(help="Test examples evaluated (0 = all).")] = None,
    curve: Annotated[
        str | None, typer.Option(help="Extra training shares for the learning curve, e.g. 0.2,0.5.")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Split, order and initialisation seed.")] = None,
    progress: Annotated[bool | None, typer.Option(help="Show a progress bar.")] = None,
    threads: Annotated[
        int | None,
        typer.Option(help="Intra-op threads for torch (0 = torch's default, one per core)."),
    ] = None,
    overwrite: OverwriteOption = False,
) -> None:
    """Fine-tune a task (resumes from OUT/training); runs under torchrun too.

    Writes the model, predictions.jsonl, metrics.json and report.md into OUT. In every task
    --lr is the head's peak rate and --encoder-lr the encoder's: an older table-qa --lr X is
    now --encoder-lr X (and its optim.head_lr is --lr), and an older formula-prediction --lr X
    given alone is now --lr X --encoder-lr X.

    formula-audit fits the audit's score weights on an answer key instead (TASI's or ExceLint's
    folder): OUT/weights.json, findings.jsonl, metrics.json and README.md; settings by --set:
    ranker=DIR, fit.rankers=DIR (one ranker per half), fit.max_checks, fit.findings=FILE."""
    _set_threads(threads or 0)
    flags = dict(encoder=encoder, checkpoint=checkpoint, steps=steps, lr=lr,
                 encoder_lr=encoder_lr, device=device, corpus=corpus, max_test=max_test,
                 curve=curve, seed=seed, progress=progress, threads=threads)  # fmt: skip
    found, cfg = _task_config(task.value, "finetune", config, set_, flags)
    _claim(out, "finetune", overwrite, tables)
    found.finetune(tables, out, cfg)


@app.command()
@_fail_cleanly
def evaluate(
    task: Annotated[EvaluateTask, typer.Argument(help="The task to evaluate.")],
    tables: Annotated[
        list[Path],
        typer.Argument(
            help="formula-prediction: table JSONL / HiTab JSON files or folders; "
            "formula-suggestion: workbooks or folders of workbooks; formula-audit: an answer "
            "key (TASI's or ExceLint's folder); cell-types: the SAUS folder; table-qa: the "
            "HiTab folder."
        ),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder for the report.")],
    model: Annotated[
        Path | None, typer.Option("--model", help="A fine-tuned model folder (OUT/model).")
    ] = None,
    config: ConfigOption = None,
    set_: SetOption = None,
    max_test: Annotated[int | None, typer.Option(help="Test examples evaluated (0 = all).")] = None,
    seed: Annotated[int | None, typer.Option(help="Split seed (as in finetune).")] = None,
    corpus: Annotated[
        Path | None,
        typer.Option(help="Corpus folder whose split.json assigns each workbook (no leakage)."),
    ] = None,
    split: Annotated[
        str | None,
        typer.Option(
            help="formula-suggestion: 'test' or 'dev' side of the workbook split, or 'all'."
        ),
    ] = None,
    ranker: Annotated[
        Path | None, typer.Option(help="formula-suggestion: ranker folder (default: shipped).")
    ] = None,
    split_by: Annotated[
        str | None,
        typer.Option(
            help="formula-suggestion: what the split draws: 'workbook' (default) or 'sheet' "
            "(the paper's Enron split: every workbook read, only that side's sheets asked)."
        ),
    ] = None,
    per_book: Annotated[
        int | None,
        typer.Option(help="formula-suggestion: at most N targets per workbook (evenly spread)."),
    ] = None,
    settings: Annotated[
        str | None,
        typer.Option(
            help="formula-suggestion: settings asked, comma-separated "
            "(default sheet,new-formula,paper)."
        ),
    ] = None,
    threads: ThreadsOption = 0,
    overwrite: OverwriteOption = False,
) -> None:
    """Evaluate a task on the test split (a fine-tuned model beside the baselines).

    A task refuses an option it does not take, and names those it does. OUT holding anything
    but an earlier evaluation is refused unless --overwrite."""
    _set_threads(threads)
    flags = dict(
        model=model, max_test=max_test, seed=seed, corpus=corpus, split=split, ranker=ranker,
        split_by=split_by, per_book=per_book, settings=settings,
    )  # fmt: skip
    found, cfg = _task_config(task.value, "evaluate", config, set_, flags)
    _claim(out, "evaluate", overwrite, tables)
    found.evaluate(tables, out, cfg)


@app.command("check-model")
@_fail_cleanly
def check_model(
    folder: Annotated[
        Path, typer.Argument(help="A saved model folder (its model.json names the task).")
    ],
    tables: Annotated[
        list[Path] | None,
        typer.Option(help="Data to re-score on (default: the data its metrics.json names)."),
    ] = None,
    json_: Annotated[Path | None, typer.Option("--json", help="Write the comparison here.")] = None,
    full: Annotated[
        bool, typer.Option("--full", help="Re-score everything its metrics name, not the stored "
                           "sample (longer: table QA's dev set is minutes on 2 cores).")
    ] = False,
    store_sample: Annotated[
        bool, typer.Option("--store-sample", help="Run the full check and, when it passes, store "
                           "the quick check's sample scores in metrics.json.")
    ] = False,
    threads: ThreadsOption = 0,
) -> None:
    """Re-score a model folder (formula prediction, cell types, table QA) against its metrics.

    Re-scores the folder's stored sample where it keeps one (at most minutes on 2 cores), else
    everything. Exits 1 when a metric differs from the stored one by more than 0.005."""
    from fortap.tasks.check_model import run_check_model

    _set_threads(threads)
    if not run_check_model(folder, tables or [], json_, full=full, store=store_sample):
        raise typer.Exit(1)


@app.command()
@_fail_cleanly
def release(
    run: Annotated[
        Path,
        typer.Argument(
            help="A finished `fortap finetune formula-prediction -o` or `fortap pretrain --out` "
            "folder."
        ),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="The release folder (created).")],
    corpus: Annotated[Path, typer.Option(help="The corpus whose split.json the run used.")],
    tables: Annotated[
        Path | None,
        typer.Option(help="Tables to measure on (default: the split's data folders, ingested)."),
    ] = None,
    threads: ThreadsOption = 0,
    overwrite: OverwriteOption = False,
) -> None:
    """Release a formula-prediction run: its model in bfloat16, the split and the settings that
    decide its test metrics, measured from the stored weights (check it with check-model). Or
    release a pretraining run: its encoder in bfloat16 (without MiniLM's word table when that
    stayed frozen), the corpus's training workbooks and a card (e.g. models/encoders/NAME).

    OUT holding anything but an earlier release is refused unless --overwrite."""
    from fortap.tasks.encoder_release import is_pretrain_run, release_encoder

    _set_threads(threads)
    _claim(out, "release", overwrite, (run,))
    if is_pretrain_run(run):
        done = release_encoder(run, out, corpus)
        typer.echo(f"released the encoder into {out}: word table {done['words_from']}, "
                   f"{done['books']} training workbooks listed")  # fmt: skip
        return
    from fortap.tasks.formula_prediction.release import release as make_release

    report = make_release(run, out, corpus, tables)
    for r in report.rows():
        typer.echo(f"{r['metric']}: run {r['reference']:.4f}, stored {r['stored']:.4f}")
    typer.echo(f"released into {out}; check it with: fortap check-model {out}")


@app.command("cell-types")
@_fail_cleanly
def cell_types(
    book: Annotated[Path, typer.Argument(help="A workbook (.xlsx, .xls, .ods, .csv).")],
    model: Annotated[
        Path | None,
        typer.Option(
            help="A cell-type model folder (fortap finetune cell-types ... -o OUT: OUT/model). "
            "Default: the shipped models/cell-types."
        ),
    ] = None,
    sheet: Annotated[str | None, typer.Option(help="Sheet name (default: the first).")] = None,
    png: Annotated[
        Path | None, typer.Option(help="Also draw the sheet coloured by type into this PNG.")
    ] = None,
    rows: Annotated[int, typer.Option(help="Rows of the grid printed (the PNG has all).")] = 60,
    start: Annotated[
        str | None, typer.Option(help="The grid's top-left cell, e.g. E20: pages a sheet wider "
                                 "or longer than the screen (default: the table's first).")
    ] = None,
    json_: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print one JSON record instead of the grid: each typed cell's address, type and "
            "probability (a PNG only with --png).",
        ),
    ] = False,
    threads: ThreadsOption = 0,
    overwrite: Annotated[
        bool, typer.Option("--overwrite", help="Replace the --png file if it exists (else refused).")
    ] = False,
) -> None:
    """Type every non-empty cell of a sheet: metadata, notes, data, left/top attribute, derived.

    Prints the typed grid and says which model typed it (with --png, also a picture of the sheet
    coloured by type). A cell whose own formula totals or combines the sheet's cells is derived.
    Without --model it uses the shipped models/cell-types (LightGBM on features computed from
    the sheet)."""
    from fortap.tasks.cell_types.show import run_cell_types

    _set_threads(threads)
    run_cell_types(book, sheet, model, png, max_rows=rows, overwrite=overwrite, as_json=json_,
                   start=start)  # fmt: skip


@app.command()
@_fail_cleanly
def ask(
    table: Annotated[Path, typer.Argument(help="A HiTab table JSON, or a workbook.")],
    question: Annotated[str, typer.Argument(help="The question, in quotes.")],
    sheet: Annotated[
        str | None, typer.Option(help="Workbook sheet (default: the first); its largest table.")
    ] = None,
    model: Annotated[
        Path | None,
        typer.Option(
            help="A table-QA model folder (fortap finetune table-qa ... -o OUT: OUT/model); "
            "default: the shipped models/table-qa."
        ),
    ] = None,
    json_: Annotated[
        bool, typer.Option("--json", help="Print the answer as one JSON record instead.")
    ] = False,
    rule: Annotated[
        bool, typer.Option("--rule", help="Answer by the header-overlap rule, without a model.")
    ] = False,
) -> None:
    """Answer a question over a table: the answer, the operation, its Excel formula and the
    cells it used, by the shipped model (models/table-qa) unless --model or --rule says
    otherwise."""
    from fortap.tasks.table_qa.ask import as_json, read_table, render
    from fortap.tasks.table_qa.ask import ask as answer_question

    found = answer_question(read_table(table, sheet), question, model, rule)
    if json_:
        import json

        typer.echo(json.dumps(as_json(found), ensure_ascii=False))
        return
    for line in render(found):
        typer.echo(line)


@app.command("tune-qa")
@_fail_cleanly
def tune_qa(
    folder: Annotated[Path, typer.Argument(help="A table-QA model folder, rewritten in place.")],
    hitab: Annotated[Path, typer.Argument(help="The HiTab release folder.")],
    scores: Annotated[
        Path, typer.Option(help="Where the head's scores are kept (resumable).")
    ] = Path("runs/table_qa"),
    train_most: Annotated[int, typer.Option(help="Train questions the reranker fits on (0: all).")] = 0,
) -> None:
    """Fit the table-QA answer reranker on a train sample, choose and calibrate it on dev, and
    write it into FOLDER (reranker.txt.gz, model.json's head.rerank)."""
    from fortap.tasks.table_qa.samples import HitabSet
    from fortap.tasks.table_qa.tune import TuneConfig, tune

    reranker, _ = tune(folder, HitabSet(hitab), scores, TuneConfig(train_most), typer.echo)
    typer.echo(f"wrote {folder}: rounds {reranker.cfg.rounds}, leaves {reranker.cfg.leaves}, "
               f"threshold {reranker.threshold:.3f}")  # fmt: skip


@app.command()
@_fail_cleanly
def serve(
    host: Annotated[str, typer.Option(help="Address to bind (loopback by default).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
    model: Annotated[
        Path | None, typer.Option(help="Formula-prediction model folder (adds the model source).")
    ] = None,
    ranker: Annotated[
        Path | None,
        typer.Option(
            help="A ranker folder (model.txt, features.json; fortap train-ranker writes one). "
            "Default: the one shipped."
        ),
    ] = None,
    max_upload_mb: Annotated[float, typer.Option(help="Largest upload accepted, in MB.")] = 20.0,
    max_workbooks: Annotated[int, typer.Option(help="Workbooks kept at once (LRU).")] = 16,
    max_workbooks_per_browser: Annotated[
        int, typer.Option(help="Workbooks one browser keeps at once (its oldest go first).")
    ] = 8,
    max_store_mb: Annotated[float, typer.Option(help="Upload bytes kept at once (LRU).")] = 256.0,
    quiet: Annotated[bool, typer.Option(help="No access log.")] = False,
    addin: Annotated[
        bool, typer.Option(help="Also serve the Excel add-in's task pane, over HTTPS.")
    ] = False,
    cert_dir: Annotated[
        Path | None, typer.Option(help="--addin's certificate folder (default ~/.fortap/addin-cert).")
    ] = None,
    office_js: Annotated[
        Path | None,
        typer.Option(help="Office.js's folder (default node_modules/@microsoft/office-js/dist)."),
    ] = None,
) -> None:
    """Serve formula suggestions over HTTP with a web page (needs the 'serve' extra); --addin
    adds the Excel add-in's task pane and serves HTTPS with a local certificate."""
    from fortap.service.audit_page import page_auditor  # inside: the audit's imports are not light
    from fortap.service.serve_cli import run_serve_cli

    run_serve_cli(host, port, model, ranker, max_upload_mb, max_workbooks, max_store_mb, quiet,
                  page_auditor(), max_workbooks_per_browser, addin, cert_dir, office_js)  # fmt: skip


# `fortap suggest` and `fortap train-ranker` live in fortap.suggest.cli (typer only at import)
from fortap.suggest.cli import suggest_command, train_ranker_command  # noqa: E402

app.command("suggest")(_fail_cleanly(suggest_command))
app.command("train-ranker")(_fail_cleanly(train_ranker_command))

# `fortap audit` lives in fortap.audit.cli (typer only at import)
from fortap.audit.cli import audit_command  # noqa: E402

app.command("audit")(_fail_cleanly(audit_command))

# `fortap recover` lives in fortap.recover.cli (typer only at import)
from fortap.recover.cli import recover_command  # noqa: E402

app.command("recover")(_fail_cleanly(recover_command))

# `fortap addin manifest|oxt` live in fortap.addin.cli (typer only at import)
from fortap.addin.cli import app as addin_app  # noqa: E402

for _command in addin_app.registered_commands:
    _command.callback = _fail_cleanly(_command.callback)
app.add_typer(addin_app, name="addin")


def unwrapped(doc: str | None) -> str | None:
    """A docstring with each paragraph on one line, so that rich wraps it to the terminal rather
    than at the source's line breaks; a list item or an indented line keeps its own line."""
    if not doc:
        return doc
    out: list[str] = []
    for line in inspect.cleandoc(doc).splitlines():
        keep = not line.strip() or line[:1] in " -*" or not out or not out[-1].strip()
        if keep:
            out.append(line)
        else:
            out[-1] += " " + line.strip()
    return "\n".join(out)


for _info in app.registered_commands:  # every command's help, as `fortap CMD --help` shows it
    _info.help = unwrapped(_info.help or inspect.getdoc(_info.callback))


def main() -> None:
    app()


if __name__ == "__main__":
    main()
