//! The rules a declaration must follow, one function each. Every rule reports through the
//! context and never stops the others.

use crate::attrs::{HandlerAttrs, HandlerKey};
use crate::ctxt::Ctxt;
use crate::expand::Kind;
use crate::model::HandlerFn;

/// Runs every rule that applies to `kind`.
pub(crate) fn handler(ctxt: &Ctxt, kind: Kind, f: &HandlerFn, attrs: &HandlerAttrs) {
    must_be_async(ctxt, kind, f);
    must_not_be_generic(ctxt, kind, f);
    must_not_take_self(ctxt, kind, f);
    match kind {
        Kind::Tool => {
            tool_name_is_valid(ctxt, attrs);
            read_only_is_not_destructive(ctxt, attrs);
            headers_are_on_named_arguments(ctxt, f);
            header_names_are_tokens(ctxt, f);
            header_names_are_unique(ctxt, f);
        }
        Kind::Prompt => {
            completions_name_parameters(ctxt, f, attrs);
            arg_settings_are_for_tools(ctxt, kind, f);
        }
        Kind::Resource => {
            arg_settings_are_for_tools(ctxt, kind, f);
            needs_uri_or_template(ctxt, f, attrs);
            template_is_well_formed_and_bound(ctxt, f, attrs);
            completions_name_template_variables(ctxt, attrs);
        }
    }
}

/// Handlers run on the async runtime; a blocking function would stall it.
fn must_be_async(ctxt: &Ctxt, kind: Kind, f: &HandlerFn) {
    if f.item.sig.asyncness.is_none() {
        ctxt.error_spanned_by(
            f.item.sig.fn_token,
            format!(
                "`#[{kind}]` functions must be `async`: write `async fn {}`",
                f.ident()
            ),
        );
    }
}

/// The macro registers one concrete function; there is nothing to instantiate generics with.
fn must_not_be_generic(ctxt: &Ctxt, kind: Kind, f: &HandlerFn) {
    if !f.item.sig.generics.params.is_empty() {
        ctxt.error_spanned_by(
            &f.item.sig.generics,
            format!("`#[{kind}]` functions cannot be generic"),
        );
    }
}

/// Handlers are free functions: shared state comes in through the `State<T>` extractor.
fn must_not_take_self(ctxt: &Ctxt, kind: Kind, f: &HandlerFn) {
    if let Some(span) = f.receiver {
        ctxt.error_at(
            span,
            format!("`#[{kind}]` functions cannot take `self`: write a free function and take shared state with `State<T>`"),
        );
    }
}

/// Tool names are 1–128 characters of `[A-Za-z0-9_.-]` (clients may hide other names).
fn tool_name_is_valid(ctxt: &Ctxt, attrs: &HandlerAttrs) {
    let Some(name) = &attrs.name else { return };
    let value = name.value();
    let ok = (1..=128).contains(&value.len())
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
    if !ok {
        ctxt.error_spanned_by(
            name,
            format!("invalid tool name {value:?}: use 1 to 128 characters from A-Z, a-z, 0-9, `_`, `.` and `-`"),
        );
    }
}

/// `destructiveHint` only means something for a tool that modifies its environment.
fn read_only_is_not_destructive(ctxt: &Ctxt, attrs: &HandlerAttrs) {
    if let (Some(read_only), Some(destructive)) = (&attrs.read_only, &attrs.destructive)
        && read_only.value
        && destructive.value
    {
        ctxt.error_at(
            destructive.span,
            "a `read_only` tool cannot be `destructive`: it does not modify its environment",
        );
    }
}

/// A prompt completion names one of the prompt's parameters.
fn completions_name_parameters(ctxt: &Ctxt, f: &HandlerFn, attrs: &HandlerAttrs) {
    for completion in &attrs.complete {
        if f.param(&completion.wire).is_none() {
            ctxt.error_spanned_by(
                &completion.argument,
                format!(
                    "`complete` names `{}`, which is not a parameter of this prompt",
                    completion.wire
                ),
            );
        }
    }
}

/// A resource has a fixed `uri` or a `template`, not both.
fn needs_uri_or_template(ctxt: &Ctxt, f: &HandlerFn, attrs: &HandlerAttrs) {
    let written = |key| attrs.written.contains(&key);
    match (&attrs.uri, &attrs.template) {
        // A key written with a refused value is reported already.
        (None, None) if written(HandlerKey::Uri) || written(HandlerKey::Template) => {}
        (None, None) => ctxt.error_spanned_by(
            f.ident(),
            "`#[resource]` needs `uri = \"...\"` (one resource) or `template = \"...\"` (a URI template)",
        ),
        (Some(_), Some(template)) => ctxt.error_spanned_by(
            &template.lit,
            "`#[resource]` takes either `uri` or `template`, not both",
        ),
        _ => {}
    }
}

/// A template parses, and each of its variables is filled by a parameter of the same name.
fn template_is_well_formed_and_bound(ctxt: &Ctxt, f: &HandlerFn, attrs: &HandlerAttrs) {
    let Some(template) = &attrs.template else {
        return;
    };
    match &template.parsed {
        Err(err) => ctxt.error_spanned_by(&template.lit, format!("malformed URI template: {err}")),
        Ok(parsed) => {
            for variable in parsed.variables() {
                if f.param(variable).is_none() {
                    ctxt.error_spanned_by(
                        &template.lit,
                        format!("template variable `{{{variable}}}` has no matching parameter: add `{variable}: String` (or another type) to the function"),
                    );
                }
            }
        }
    }
}

/// A template completion names one of the template's variables.
fn completions_name_template_variables(ctxt: &Ctxt, attrs: &HandlerAttrs) {
    for completion in &attrs.complete {
        match &attrs.template {
            // A template written with a refused value is reported already.
            None if attrs.written.contains(&HandlerKey::Template) => {}
            None => ctxt.error_spanned_by(
                &completion.argument,
                "`complete` needs a `template`: a fixed `uri` has nothing to complete",
            ),
            Some(template) if template.parsed.is_ok() => {
                if !template.variables().any(|v| v == completion.wire) {
                    ctxt.error_spanned_by(
                        &completion.argument,
                        format!(
                            "`complete` names `{}`, which is not a variable of the template",
                            completion.wire
                        ),
                    );
                }
            }
            // A malformed template is reported once, by the rule above.
            Some(_) => {}
        }
    }
}

/// `#[arg(...)]` settings describe tool arguments (`header`: the `x-mcp-header` of a tool's
/// input schema); prompts and resources have none.
fn arg_settings_are_for_tools(ctxt: &Ctxt, kind: Kind, f: &HandlerFn) {
    for param in &f.params {
        if let Some(span) = param.arg.written {
            ctxt.error_at(
                span,
                format!("`#[arg]` goes on the parameters of a `#[tool]`, not of a `#[{kind}]`"),
            );
        }
    }
}

/// A header mirrors one named argument: a parameter written as a plain name.
fn headers_are_on_named_arguments(ctxt: &Ctxt, f: &HandlerFn) {
    for param in &f.params {
        if let (Some(header), None) = (&param.arg.header, &param.name) {
            ctxt.error_spanned_by(
                header,
                "`#[arg(header)]` needs a parameter named by a plain identifier: the argument it mirrors",
            );
        }
    }
}

/// The name becomes the `Mcp-Param-{name}` header: a non-empty RFC 9110 token, which
/// excludes spaces, CR and LF.
fn header_names_are_tokens(ctxt: &Ctxt, f: &HandlerFn) {
    for header in f.params.iter().filter_map(|p| p.arg.header.as_ref()) {
        let name = header.value();
        if !is_token(&name) {
            ctxt.error_spanned_by(
                header,
                format!("invalid header name {name:?}: use 1 or more of A-Z a-z 0-9 and !#$%&'*+-.^_`|~ (it becomes `Mcp-Param-{{name}}`)"),
            );
        }
    }
}

/// Header names are case-insensitive: two arguments of one tool may not share one.
fn header_names_are_unique(ctxt: &Ctxt, f: &HandlerFn) {
    let headers: Vec<_> = f
        .params
        .iter()
        .filter_map(|p| p.arg.header.as_ref())
        .collect();
    for (i, later) in headers.iter().enumerate() {
        let name = later.value();
        if let Some(earlier) = headers[..i]
            .iter()
            .find(|e| e.value().eq_ignore_ascii_case(&name))
        {
            ctxt.error_spanned_by(
                later,
                format!(
                    "duplicate header name {name:?}: {:?} is already mirrored (header names are case-insensitive)",
                    earlier.value()
                ),
            );
        }
    }
}

/// Whether `name` is a non-empty RFC 9110 token (`1*tchar`).
fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::is_token;

    #[test]
    fn tokens_are_rfc_9110_tchars() {
        assert!(is_token("Region"));
        assert!(is_token("X-Tenant_Id.v2~!#$%&'*+^`|"));
        for name in [
            "",
            "Re gion",
            "Re\ngion",
            "Re\r\ngion",
            "Ré",
            "a:b",
            "(x)",
            "a\"b",
        ] {
            assert!(!is_token(name), "{name:?}");
        }
    }
}
