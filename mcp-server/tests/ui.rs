//! Compile-fail and compile-pass tests of the macros: every user-facing error has a case with
//! its expected diagnostics. Regenerate the snapshots of one group with
//! `TRYBUILD=overwrite cargo test -p mcp-server --test ui <group>`.

/// `#[tool]`, `#[prompt]`, `#[resource]`, `#[derive(ToolInput)]` and `#[derive(Continuation)]`.
#[test]
fn declarations() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/fail/*.rs");
    cases.pass("tests/ui/pass/*.rs");
}

/// `#[derive(ElicitForm)]`, `#[elicit_form]` and `#[derive(FormChoice)]`.
#[test]
fn forms() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/forms/fail/*.rs");
    cases.pass("tests/ui/forms/pass/*.rs");
}
