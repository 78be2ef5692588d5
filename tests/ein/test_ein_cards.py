"""The two Ein syntax cards (ours, the paper's App. F card), their sizes, and the checks
of every paper-card construct against this interpreter (issue 21, item 6)."""

from __future__ import annotations

import re

import pytest
from docs import render_docs
from typer.testing import CliRunner

from closurebench.cli import app
from closurebench.ein import (
    EIN_CARDS,
    PAPER_CARD,
    DivisionByZeroError,
    EinError,
    UnknownNameError,
    ein_card,
    run,
    syntax_card,
)
from closurebench.ein.examples import PAPER_CARD_CHECKS, CardCheck
from closurebench.ein.tokens import TokenCount, count_tokens
from closurebench.errors import ConfigError

runner = CliRunner()

#: The paper's card as its published text gives it: every space and line break lost in
#: extraction (markdown escapes removed). PAPER_CARD must be exactly this plus whitespace.
PAPER_CARD_AS_EXTRACTED = (
    "Einisaminimaltensor-logiclanguageforgraphcomputation."
    "Programsoperateonadjacencymatricesandproducescalarorvectorresults."
    "SYNTAX:"
    "-A=edges([[0,1],[1,2]],N)--adjacencymatrixfromedgelist,Nnodes"
    "-B[i,k]=A[i,j]A[j,k]--Einsteinsummation(repeatedindicessummed)"
    "-Result=trace(A)--trace(sumofdiagonal)"
    "-Result=sum(A)/sum(A,1)--sumall/alongaxis"
    "-Result=tc(A)--transitiveclosure(reachabilitymatrix)"
    "-Result=reach(A,i)--nodesreachablefromi,INCLUDINGi"
    "-Result=desc(A,i)--descendantsofi,EXCLUDINGi"
    "-Result=has_path(A,i,j)--1.0ifpathexists,else0.0"
    "-Result=select(V,i,d)--selectelementialongdimd"
    "-Result=ge/gt/eq(A,x)--comparisonpredicates(return0/1)"
    "-U=ones(N)/zeros(N)--constructors"
    "-X=A*B/A+B/A-B--elementwiseops"
    "-:printResult--output(MUSTbelastline)"
    "RULES:"
    "-Startwithcomment://category_name"
    "-DefineA=edges(...)fortheadjacencymatrix"
    "-Computeanswerusingtensoroperations"
    "-Endwith:printResult"
)


def test_the_paper_card_is_the_paper_text_with_its_spaces_restored() -> None:
    assert re.sub(r"\s+", "", PAPER_CARD) == PAPER_CARD_AS_EXTRACTED
    lines = PAPER_CARD.splitlines()
    assert lines[0] == "Ein is a minimal tensor-logic language for graph computation."
    assert "- Result = reach(A, i) -- nodes reachable from i, INCLUDING i" in lines
    assert "- Result = desc(A, i) -- descendants of i, EXCLUDING i" in lines
    assert lines[-1] == "- End with :print Result"
    assert all(line == line.strip() for line in lines)


def test_the_card_registry() -> None:
    assert list(EIN_CARDS) == ["ours", "paper"]
    assert ein_card() == ein_card("ours") == syntax_card()
    assert ein_card("paper") == PAPER_CARD
    with pytest.raises(ConfigError, match=r"--ein-card 'appendix' is unknown; choose one of "
                       r"ours, paper"):  # fmt: skip
        ein_card("appendix")


def _card_lines() -> list[str]:
    """The constructs of the paper card: each SYNTAX / RULES line, left of ``--``."""
    return [line[2:].split(" -- ")[0] for line in PAPER_CARD.splitlines() if line.startswith("- ")]


def test_every_construct_of_the_paper_card_is_checked() -> None:
    checked = {c.construct for c in PAPER_CARD_CHECKS}
    # the rules that only restate the syntax lines are checked there
    restated = {
        "Define A = edges(...) for the adjacency matrix",
        "Compute answer using tensor operations",
        "End with :print Result",
    }
    missing = [c for c in _card_lines() if c not in checked and c not in restated]
    assert not missing, missing
    assert {"App. D program, as printed", "App. L.4 program, as printed"} <= checked


@pytest.mark.parametrize("check", PAPER_CARD_CHECKS, ids=lambda c: c.construct)
def test_each_check_runs_as_it_says(check: CardCheck) -> None:
    if check.runs:
        run(check.written)
    else:
        with pytest.raises(EinError):
            run(check.written)
    if check.meant is not None:
        run(check.meant)
    else:
        assert check.runs, "a construct that fails as written needs the program it means"


def test_what_the_paper_card_says_about_source_inclusion() -> None:
    path = "A = edges([[0,1],[1,2]], 3)\n"
    assert run(path + "R = reach(A, 0)\n:print R").value.tolist() == [1, 1, 1]  # INCLUDING i
    assert run(path + "R = desc(A, 0)\n:print R").value.tolist() == [0, 1, 1]  # EXCLUDING i
    # tc is strict: a row leaves out its source off a cycle (App. D's "3" needs reach)
    assert float(run(path + "R = sum(select(tc(A), 0, 0))\n:print R").value) == 2.0
    assert float(run(path + "R = has_path(A, 0, 0)\n:print R").value) == 1.0
    # the card's "sum(A) / sum(A, 1)" is two forms; as a division it fails on a sink
    with pytest.raises(DivisionByZeroError):
        run(path + "Result = sum(A) / sum(A, 1)\n:print Result")
    with pytest.raises(UnknownNameError):
        run(path + "Result = ge/gt/eq(A, 1)\n:print Result")


def test_the_ein_page_lists_the_paper_card_and_its_differences() -> None:
    page = render_docs()["ein.md"]
    section = page.split("## The paper's syntax card (`--ein-card paper`)", 1)[1]
    section = section.split("\n## ", 1)[0]
    assert PAPER_CARD.rstrip() in section
    for check in PAPER_CARD_CHECKS:
        assert f"| `{check.construct}` |" in section, check.construct
    assert section.count("**differs**") == sum(not c.agrees for c in PAPER_CARD_CHECKS) > 0
    assert "fails: `DivisionByZeroError`" in section


def test_count_tokens_estimate_is_labelled() -> None:
    got = count_tokens("x" * 10, tokenizer="estimate")
    assert got == TokenCount(3, "estimate: ceil(characters / 4), no tokenizer used", False)
    auto = count_tokens(PAPER_CARD)
    assert auto.tokens > 0
    if not auto.exact:  # no tokenizer on this machine: the estimate, said so
        assert auto.method.startswith("estimate") and auto.tokens == -(-len(PAPER_CARD) // 4)
    with pytest.raises(ConfigError, match="tokenizer 'no/such-model' does not load"):
        count_tokens("x", tokenizer="no/such-model")


def test_cli_card_prints_either_card_and_their_sizes() -> None:
    ours = runner.invoke(app, ["ein", "card"])
    assert ours.exit_code == 0 and ours.stdout == syntax_card()
    paper = runner.invoke(app, ["ein", "card", "--card", "paper"])
    assert paper.exit_code == 0 and paper.stdout == PAPER_CARD
    sizes = runner.invoke(app, ["ein", "card", "--tokens", "--tokenizer", "estimate"])
    assert sizes.exit_code == 0, sizes.output
    lines = sizes.stdout.splitlines()
    assert lines == [
        f"ours: {len(syntax_card())} characters, ~{-(-len(syntax_card()) // 4)} tokens "
        "(estimate: ceil(characters / 4), no tokenizer used)",
        f"paper: {len(PAPER_CARD)} characters, ~{-(-len(PAPER_CARD) // 4)} tokens "
        "(estimate: ceil(characters / 4), no tokenizer used)",
    ]
    one = runner.invoke(app, ["ein", "card", "--card", "paper", "--tokens"])
    assert one.exit_code == 0 and one.stdout.startswith("paper: ")
    assert len(one.stdout.splitlines()) == 1
    bad = runner.invoke(app, ["ein", "card", "--card", "appendix"])
    assert bad.exit_code == 1 and "--card 'appendix' is unknown" in bad.output
    loose = runner.invoke(app, ["ein", "card", "--tokenizer", "estimate"])
    assert loose.exit_code == 1 and "add --tokens" in loose.output
