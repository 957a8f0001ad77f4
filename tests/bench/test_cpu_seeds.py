"""`bench/cpu_seeds.py`: the plan's order and dependencies, and a rerun that skips what finished
and never starts what a failed encoder would feed."""

from __future__ import annotations

import sys
import textwrap

from bench.cpu_seeds import needs, plan, run


def test_the_plan_is_seed_major_and_each_fine_tune_waits_for_its_encoder(tmp_path):
    jobs = plan(tmp_path, tmp_path / "corpus", steps=10, seeds=2)
    names = [name for name, _, _ in jobs]
    assert names[:2] == ["pretrain/tuta-s0", "pretrain/fortap-s0"]
    assert names.index("pretrain/tuta-s1") > names.index("table_qa/random")
    assert len(names) == 2 * 2 + 5 * 6  # 4 pretraining runs; 6 fine-tunes of 5 encoders
    assert needs("cell_types/fortap-s1/fold-3") == "pretrain/fortap-s1"
    assert needs("table_qa/random") is None
    tune = dict((n, argv) for n, argv, _ in jobs)["table_qa/fortap-s0"]
    assert tune[tune.index("--checkpoint") + 1].endswith("pretrain/fortap-s0/encoder")
    assert "--encoder-lr" in tune and "1e-3" in tune


def test_a_rerun_skips_finished_jobs_and_a_failed_encoder_starts_nothing(tmp_path):
    fake = tmp_path / "fake.py"  # stands in for `fortap`: finishes a job by writing its marker
    fake.write_text(
        textwrap.dedent("""
        import sys
        from pathlib import Path
        argv = sys.argv[1:]
        if any("fail" in a for a in argv):
            sys.exit(3)
        out = Path(argv[argv.index("--out" if "--out" in argv else "-o") + 1])
        target = out / "encoder" / "config.json" if argv[0] == "pretrain" else out / "metrics.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("{}")
    """)
    )
    work = tmp_path / "work"
    jobs = [job for job in plan(work, tmp_path, steps=1, seeds=1) if "fortap" not in job[0]]
    state = run(work, jobs, parallel=2, command=[sys.executable, str(fake)], poll=0.05)
    assert set(state.values()) == {"ran now"} and len(state) == len(jobs)
    assert set(
        run(work, jobs, parallel=2, command=[sys.executable, str(fake)], poll=0.05).values()
    ) == {"finished before"}
    failing = [(n.replace("tuta", "fail"), [a.replace("tuta-s0", "fail-s0") for a in argv], m)
               for n, argv, m in plan(tmp_path / "other", tmp_path, 1, 1)[:1]]  # fmt: skip
    failing += [("cell_types/fail-s0/fold-0", ["finetune"], tmp_path / "never")]
    state = run(
        tmp_path / "other", failing, parallel=1, command=[sys.executable, str(fake)], poll=0.05
    )
    assert state == {"pretrain/fail-s0": "failed",
                     "cell_types/fail-s0/fold-0": "skipped: its encoder failed"}  # fmt: skip
