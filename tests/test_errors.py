"""Errors carry their next step once (`Fix`); each surface renders its own form."""

from __future__ import annotations

from casetrack.errors import CaseNotFoundError, CaseTrackError, Fix, list_documents_fix, reopen_fix


def test_a_fix_renders_as_a_command_and_as_a_tool_call() -> None:
    fix = reopen_fix('Smith "Big" v. Jones')
    assert fix.for_cli() == 'Reopen it first: casetrack case reopen "Smith "Big" v. Jones"'
    assert (
        fix.for_tool()
        == 'Reopen it first: set_case_status(case_name="Smith \\"Big\\" v. Jones", status="active")'
    )
    assert (
        list_documents_fix("Caso Ação").for_tool() == 'List documents: list_documents(case_name="Caso Ação")'
    )
    assert Fix("List cases", "casetrack case list", "list_cases").for_tool() == "List cases: list_cases()"


def test_without_a_tool_both_surfaces_show_the_command() -> None:
    fix = Fix("Re-embed", 'casetrack reembed --case "X"')
    assert fix.for_tool() == fix.for_cli() == 'Re-embed: casetrack reembed --case "X"'
    assert Fix("Check the path").for_cli() == "Check the path"


def test_the_error_keeps_hint_for_the_cli_and_tool_hint_for_mcp() -> None:
    e = CaseNotFoundError("No case named 'X'.", fix=Fix("List cases", "casetrack case list", "list_cases"))
    assert e.hint == "List cases: casetrack case list" and e.tool_hint == "List cases: list_cases()"
    assert str(e) == "No case named 'X'. List cases: casetrack case list"
    plain = CaseTrackError("Something broke.", "Run casetrack models verify.")
    assert plain.fix is None and plain.hint == plain.tool_hint == "Run casetrack models verify."
    assert CaseTrackError("Only a message.").tool_hint is None
