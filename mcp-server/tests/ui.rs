//! Compile-fail and compile-pass tests of the macros: every user-facing error has a case with
//! its expected diagnostics. Regenerate the snapshots of one group with
//! `TRYBUILD=overwrite cargo test -p typemcp-server --test ui <group>`.

/// `#[tool]`, `#[prompt]`, `#[resource]`, `#[derive(ToolInput)]` and `#[derive(Continuation)]`.
#[test]
fn declarations() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/fail/*.rs");
    cases.pass("tests/ui/pass/*.rs");
}

/// `#[derive(ElicitForm)]`, `#[elicit_form]` and `#[derive(FormChoice)]`.
///
/// A refused field type's diagnostic lists the types that can be form fields, and the
/// `chrono` and `url` features add some: the snapshots are of the default features, so with
/// either feature on only the passing cases run.
#[test]
fn forms() {
    let cases = trybuild::TestCases::new();
    if cfg!(not(any(feature = "chrono", feature = "url"))) {
        cases.compile_fail("tests/ui/forms/fail/*.rs");
    }
    cases.pass("tests/ui/forms/pass/*.rs");
}
