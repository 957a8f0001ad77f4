"""One formula cell -> one sample: which cells are input, and the formula facts as cell ids."""

from __future__ import annotations

from collections import Counter

from fortap.corpus.facts import FactsConfig, formula_facts, kept_formulas
from fortap.corpus.samples import (
    FORMULA_KEY,
    SampleConfig,
    draw_mode,
    formula_sample,
    sample_rng,
    table_sample,
)
from fortap.encoding.formula_targets import FormulaTargets
from fortap.encoding.serialize import SerializeConfig

from .formula_tables import sales_table


def sample(tokenizer, rc, mode, cfg=None):
    table = sales_table()
    kept, _ = kept_formulas(table, FactsConfig())
    facts = formula_facts(table, rc, kept[rc], FactsConfig())
    return formula_sample(table, facts, tokenizer, cfg or SerializeConfig(), mode)


def test_sum_formula_as_tokens(tokenizer):
    ex = sample(tokenizer, (2, 4), "tokens")  # E3 =SUM(B3:D3)
    # headers, the formula's row (2) and column (4)
    assert ex.cell_coords == [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (1, 0), (1, 4),
                              (2, 0), (2, 1), (2, 2), (2, 3), (2, 4), (3, 0), (3, 4)]  # fmt: skip
    assert tokenizer.decode(ex.token_ids) == (
        "[CLS] [SEP] item [SEP] 2019 [SEP] 2020 [SEP] 2021 [SEP] total [SEP] north [SEP] 30 "
        "[SEP] south [SEP] 30 [SEP] 40 [SEP] 6 [SEP] [SUM] [:] [RANGE] [RANGE] [SEP] total [SEP] 106"
    )
    assert ex.targets[FORMULA_KEY] == FormulaTargets(
        cell=12,
        mode="tokens",
        # [SUM] is vocab 20, [:] 2, [RANGE] 3; the range ends point at B3 (cell 9) and D3 (11)
        tokens=((1, "op", 20, 0), (2, "other", 2, 0), (3, "ref", 3, 9), (4, "ref", 3, 11)),
        side="top",
        formula_header=5,
        positives=(2, 3, 4),
        negatives=(),
        row_header=8,
        col_header=5,
        referenced=(9, 10, 11),
        ncp=((13, (9, 11)),),
        ncp_neighbours=(),
    )
    assert ex.meta["formula"] == "=SUM(B3:D3)" and ex.meta["formula_cell"] == "E3"


def test_other_formulas_with_operands_in_the_input_give_ncp_groups(tokenizer):
    table = sales_table()
    kept, _ = kept_formulas(table, FactsConfig())
    every = [formula_facts(table, rc, f, FactsConfig()) for rc, f in sorted(kept.items())]
    e2 = next(f for f in every if f.cell == (1, 4))  # E2 =B2+C2; input: headers, row 1, col 4
    for mode in ("value", "tokens"):
        ex = formula_sample(table, e2, tokenizer, SerializeConfig(), mode, neighbours=every)
        ids = {rc: k for k, rc in enumerate(ex.cell_coords, start=1)}
        # E4 =E2+E3 has both operands in column 4; E3 =SUM(B3:D3), B4 =B2+B3, C4 and D4 have
        # an operand off row 1 and column 4; E2's own group stays in `ncp`
        facts = ex.targets[FORMULA_KEY]
        assert facts.ncp_neighbours == ((1, (ids[(1, 4)], ids[(2, 4)])),), mode
        assert facts.ncp == ((1, (ids[(1, 1)], ids[(1, 2)])),)


def test_row_formula_as_tag_records_negatives(tokenizer):
    ex = sample(tokenizer, (1, 4), "tag")  # E2 =B2+C2
    facts = ex.targets[FORMULA_KEY]
    ids = {rc: k for k, rc in enumerate(ex.cell_coords, start=1)}
    assert facts.mode == "tag" and facts.tokens == ()
    assert facts.cell == ids[(1, 4)]
    assert facts.positives == (ids[(0, 1)], ids[(0, 2)])
    assert facts.negatives == (ids[(0, 3)],)
    assert facts.ncp == ((1, (ids[(1, 1)], ids[(1, 2)])),)
    assert "[FORMULA]" in tokenizer.decode(ex.token_ids)


def test_cells_off_the_row_and_column_are_not_in_facts(tokenizer):
    ex = sample(tokenizer, (3, 4), "value")  # E4 =E2+E3: column 4, row 3
    facts = ex.targets[FORMULA_KEY]
    assert facts.mode == "value"
    ids = {rc: k for k, rc in enumerate(ex.cell_coords, start=1)}
    assert facts.referenced == (ids[(1, 4)], ids[(2, 4)])
    assert facts.positives == (ids[(1, 0)], ids[(2, 0)])


def test_needed_cells_that_do_not_fit_give_no_sample(tokenizer):
    assert (
        sample(tokenizer, (2, 4), "value", SerializeConfig(max_seq_len=12, max_cell_tokens=2))
        is None
    )


def test_mode_draw_depends_only_on_the_sample_key():
    cfg = SampleConfig()
    first = [draw_mode(sample_rng(0, "sales", "Sheet1", (r, 4)), cfg) for r in range(200)]
    again = [draw_mode(sample_rng(0, "sales", "Sheet1", (r, 4)), cfg) for r in range(200)]
    assert first == again
    counts = Counter(
        draw_mode(sample_rng(0, "b", "S", (r, c)), cfg) for r in range(50) for c in range(40)
    )
    assert 0.35 < counts["tokens"] / 2000 < 0.45 and 0.25 < counts["tag"] / 2000 < 0.35


def test_table_sample_has_no_formula_facts(tokenizer):
    ex = table_sample(
        sales_table(), tokenizer, SerializeConfig(), sample_rng(0, "s", "S", (-1, -1))
    )
    assert FORMULA_KEY not in ex.targets
    assert len(ex.cell_coords) == 20
    assert ex.meta["input_modes"][0] == [1, 4, "value"]


def test_table_sample_cuts_its_context_into_a_lead_and_choices(tokenizer):
    """As table-context retrieval cuts it: one snippet after [CLS], the rest kept as choices."""
    from dataclasses import replace

    from fortap.corpus.snippets import CONTEXT_LEAD, SNIPPETS, TableContextConfig, snippets

    title = " ".join(["regional sales of the three years"] * 3)  # 18 words: 2 snippets
    table = replace(sales_table(), context=(title,))
    ex = table_sample(table, tokenizer, SerializeConfig(), sample_rng(0, "s", "S", (-1, -1)))
    lead, rest = ex.meta[CONTEXT_LEAD], ex.meta[SNIPPETS]
    assert sorted([lead, *rest]) == sorted(snippets(table.context, TableContextConfig()))
    assert lead and len(rest) == 1
    lead_ids = [t[0] for t in tokenizer.encode_cell(lead)]
    assert list(ex.token_ids[1 : 1 + len(lead_ids)]) == lead_ids  # right after [CLS]
    bare = table_sample(
        sales_table(), tokenizer, SerializeConfig(), sample_rng(0, "s", "S", (-1, -1))
    )
    assert bare.meta[CONTEXT_LEAD] == "" and bare.meta[SNIPPETS] == []
