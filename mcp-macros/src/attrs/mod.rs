//! Attribute arguments (`#[tool(name = "x", read_only)]`) parsed into typed values that keep
//! their spans.
//!
//! Each attribute's keys are an enum ([`HandlerKey`], [`ContainerKey`], [`ArgKey`]) matched
//! exhaustively:
//! the written key is looked up once among the keys that attribute accepts ([`keys`]), and
//! each arm asks for the type of value it takes ([`Arg::string`], [`Arg::flag`],
//! [`Arg::path`], …). An unknown, duplicate or wrongly typed key is recorded at its span and
//! parsing goes on with the next key, so every mistake in an attribute is reported in one
//! build.

mod keys;

use proc_macro2::{Span, TokenStream};
use syn::ext::IdentExt;
use syn::parse::Parser;
use syn::spanned::Spanned;
use syn::{Attribute, Ident, LitStr, Meta, Path};

pub(crate) use keys::{Arg, Keys, Keyword};

use crate::ctxt::Ctxt;
use crate::model::Template;

/// A value and where it was written.
#[derive(Clone, Debug)]
pub(crate) struct Sp<T> {
    pub(crate) value: T,
    pub(crate) span: Span,
}

/// The keys of `#[tool]`, `#[prompt]` and `#[resource]` (each accepts its own subset).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HandlerKey {
    Name,
    Title,
    Description,
    ReadOnly,
    Destructive,
    Idempotent,
    OpenWorld,
    Task,
    Uri,
    Template,
    MimeType,
    Complete,
    Crate,
}

impl Keyword for HandlerKey {
    fn as_str(self) -> &'static str {
        match self {
            Self::Name => "name",
            Self::Title => "title",
            Self::Description => "description",
            Self::ReadOnly => "read_only",
            Self::Destructive => "destructive",
            Self::Idempotent => "idempotent",
            Self::OpenWorld => "open_world",
            Self::Task => "task",
            Self::Uri => "uri",
            Self::Template => "template",
            Self::MimeType => "mime_type",
            Self::Complete => "complete",
            Self::Crate => "crate",
        }
    }

    fn repeatable(self) -> bool {
        matches!(self, Self::Complete)
    }
}

/// The keys of the derives' container attributes (`#[tool_input(...)]`,
/// `#[continuation(...)]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ContainerKey {
    Crate,
}

impl Keyword for ContainerKey {
    fn as_str(self) -> &'static str {
        match self {
            Self::Crate => "crate",
        }
    }
}

/// The keys of `#[arg(...)]` on a parameter of a declared function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ArgKey {
    Header,
}

impl Keyword for ArgKey {
    fn as_str(self) -> &'static str {
        match self {
            Self::Header => "header",
        }
    }
}

/// The attribute a parameter's settings are written in.
pub(crate) const ARG: &str = "arg";

/// What `#[arg(...)]` on a parameter accepts.
#[derive(Default)]
pub(crate) struct ArgAttrs {
    /// `header = "Name"`: the argument is mirrored into the `Mcp-Param-Name` header
    /// (`x-mcp-header` on its property).
    pub(crate) header: Option<LitStr>,
    /// The first `#[arg]` attribute written (for "not on this kind of parameter" errors).
    pub(crate) written: Option<Span>,
}

impl ArgAttrs {
    /// Reads every `#[arg(...)]` among `attrs` (duplicates across them are reported too).
    pub(crate) fn parse(ctxt: &Ctxt, attrs: &[Attribute]) -> Self {
        let mut out = Self::default();
        let mut keys = Keys::new(ctxt, "#[arg]", &[ArgKey::Header]);
        for attr in attrs.iter().filter(|a| a.path().is_ident(ARG)) {
            out.written.get_or_insert_with(|| attr.path().span());
            let Meta::List(list) = &attr.meta else {
                ctxt.error_spanned_by(attr, "expected `#[arg(header = \"Name\")]`");
                continue;
            };
            keys.parse(list.tokens.clone(), |key, arg| match key {
                ArgKey::Header => out.header = arg.string(),
            });
        }
        out
    }
}

/// What `crate = ...` names, in errors.
const CRATE_PLACEHOLDER: &str = "path::to::typemcp_server";

/// What the declaration macros accept; each macro allows its own subset of keys.
#[derive(Default)]
pub(crate) struct HandlerAttrs {
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) read_only: Option<Sp<bool>>,
    pub(crate) destructive: Option<Sp<bool>>,
    pub(crate) idempotent: Option<Sp<bool>>,
    pub(crate) open_world: Option<Sp<bool>>,
    /// `task` (optional) or `task = "required"`: calls may run as tasks.
    pub(crate) task: Option<Sp<TaskMode>>,
    pub(crate) uri: Option<LitStr>,
    /// The URI template, parsed once here and used by both the checks and the expansion.
    pub(crate) template: Option<Template>,
    pub(crate) mime_type: Option<LitStr>,
    /// `complete(argument = handler)` entries, in order.
    pub(crate) complete: Vec<Completion>,
    /// `crate = path`: where the runtime crate is, for re-exporting crates.
    pub(crate) krate: Option<Path>,
    /// Every accepted key written, even with a value that was refused (so that the checks do
    /// not report it missing as well).
    pub(crate) written: Vec<HandlerKey>,
}

/// One `complete(argument = handler)` entry.
pub(crate) struct Completion {
    /// The argument or template variable, as written (for error spans).
    pub(crate) argument: Ident,
    /// Its name on the wire (`r#type` is `type`).
    pub(crate) wire: String,
    /// The completion function.
    pub(crate) handler: Path,
}

impl HandlerAttrs {
    /// Parses the arguments of `#[attr(...)]`, which accepts the keys `accepted`.
    pub(crate) fn parse(
        ctxt: &Ctxt,
        attr: &str,
        accepted: &'static [HandlerKey],
        tokens: TokenStream,
    ) -> Self {
        let mut attrs = Self::default();
        Keys::new(ctxt, attr, accepted).parse(tokens, |key, arg| {
            attrs.written.push(key);
            attrs.read(ctxt, key, arg);
        });
        attrs
    }

    /// Reads one key's value into its slot.
    fn read(&mut self, ctxt: &Ctxt, key: HandlerKey, arg: Arg<'_>) {
        match key {
            HandlerKey::Name => self.name = arg.string(),
            HandlerKey::Title => self.title = arg.string(),
            HandlerKey::Description => self.description = arg.string(),
            HandlerKey::ReadOnly => self.read_only = arg.flag(),
            HandlerKey::Destructive => self.destructive = arg.flag(),
            HandlerKey::Idempotent => self.idempotent = arg.flag(),
            HandlerKey::OpenWorld => self.open_world = arg.flag(),
            HandlerKey::Task => self.task = task_mode(ctxt, arg),
            HandlerKey::Uri => self.uri = arg.string(),
            HandlerKey::Template => self.template = arg.string().map(Template::parse),
            HandlerKey::MimeType => self.mime_type = arg.string(),
            HandlerKey::Complete => completions(ctxt, arg, &mut self.complete),
            HandlerKey::Crate => self.krate = arg.path(CRATE_PLACEHOLDER),
        }
    }
}

/// How a tool runs as a task (`task`, `task = "optional"`, `task = "required"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TaskMode {
    Optional,
    Required,
}

/// Reads `task` alone (optional) or `task = "optional" | "required"`.
fn task_mode(ctxt: &Ctxt, arg: Arg<'_>) -> Option<Sp<TaskMode>> {
    let span = arg.key_span();
    if arg.is_bare() {
        return Some(Sp {
            value: TaskMode::Optional,
            span,
        });
    }
    let mode = arg.string()?;
    let value = match mode.value().as_str() {
        "optional" => TaskMode::Optional,
        "required" => TaskMode::Required,
        other => {
            ctxt.error_spanned_by(
                &mode,
                format!("unknown task mode {other:?}: write `task`, `task = \"optional\"` or `task = \"required\"`"),
            );
            return None;
        }
    };
    Some(Sp {
        value,
        span: mode.span(),
    })
}

/// Reads the entries of `complete(argument = handler, ...)`, reporting each bad one.
fn completions(ctxt: &Ctxt, arg: Arg<'_>, out: &mut Vec<Completion>) {
    let Some(tokens) = arg.list("complete(argument = completion_function)") else {
        return;
    };
    let parser = syn::meta::parser(|entry| {
        let Some(argument) = entry.path.get_ident().cloned() else {
            Arg::skip(entry.input)?;
            ctxt.error_spanned_by(&entry.path, "expected `argument = completion_function`");
            return Ok(());
        };
        let wire = argument.unraw().to_string();
        let entry = Arg::read(ctxt, argument.clone(), entry.input)?;
        let Some(handler) = entry.path("completion_function") else {
            return Ok(());
        };
        if out.iter().any(|c| c.wire == wire) {
            ctxt.error_spanned_by(&argument, format!("duplicate completion for `{wire}`"));
            return Ok(());
        }
        out.push(Completion {
            argument,
            wire,
            handler,
        });
        Ok(())
    });
    if let Err(err) = parser.parse2(tokens) {
        ctxt.syn_error(err);
    }
}

/// What the derives' container attributes accept.
#[derive(Default)]
pub(crate) struct ContainerAttrs {
    /// `crate = path`: where the runtime crate is, for re-exporting crates.
    pub(crate) krate: Option<Path>,
}

impl ContainerAttrs {
    /// Reads every `#[name(...)]` among `attrs` (duplicates across them are reported too).
    pub(crate) fn parse(ctxt: &Ctxt, name: &str, attrs: &[Attribute]) -> Self {
        let mut out = Self::default();
        let label = format!("#[{name}]");
        let mut keys = Keys::new(ctxt, &label, &[ContainerKey::Crate]);
        for attr in attrs.iter().filter(|a| a.path().is_ident(name)) {
            let Meta::List(list) = &attr.meta else {
                ctxt.error_spanned_by(attr, format!("expected `#[{name}(crate = path)]`"));
                continue;
            };
            keys.parse(list.tokens.clone(), |key, arg| match key {
                ContainerKey::Crate => out.krate = arg.path(CRATE_PLACEHOLDER),
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use quote::{ToTokens, quote};

    use super::*;

    const TOOL: &[HandlerKey] = &[HandlerKey::Name, HandlerKey::ReadOnly, HandlerKey::Crate];

    fn parse(tokens: TokenStream) -> (HandlerAttrs, Vec<String>) {
        let ctxt = Ctxt::new();
        let attrs = HandlerAttrs::parse(&ctxt, "#[tool]", TOOL, tokens);
        let errors = ctxt.finish().to_string();
        let messages = errors
            .split("compile_error !")
            .skip(1)
            .map(|m| m.trim().to_owned())
            .collect();
        (attrs, messages)
    }

    #[test]
    fn reads_typed_values() {
        let (attrs, errors) = parse(quote!(name = "add", read_only = false, crate = my::sdk));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(attrs.name.map(|n| n.value()).as_deref(), Some("add"));
        assert_eq!(attrs.read_only.map(|f| f.value), Some(false));
        let krate = attrs.krate.map(|p| p.to_token_stream().to_string());
        assert_eq!(krate.as_deref(), Some("my :: sdk"));
    }

    #[test]
    fn a_wrongly_typed_value_does_not_stop_the_keys_after_it() {
        let (attrs, errors) = parse(quote!(name = 5, read_only = "yes", nme, name = "x"));
        assert_eq!(errors.len(), 4, "{errors:?}");
        assert!(errors[0].contains("`name` takes a string"), "{errors:?}");
        assert!(
            errors[1].contains("`read_only` takes `true` or `false`"),
            "{errors:?}"
        );
        assert!(
            errors[2]
                .contains("unknown `#[tool]` key `nme`; expected one of: name, read_only, crate"),
            "{errors:?}"
        );
        assert!(errors[3].contains("duplicate `name`"), "{errors:?}");
        assert!(attrs.name.is_none());
    }

    #[test]
    fn a_path_may_be_quoted() {
        let (attrs, errors) = parse(quote!(crate = "my::sdk"));
        assert!(errors.is_empty(), "{errors:?}");
        assert!(attrs.krate.is_some());
        let (_, errors) = parse(quote!(crate = "not a path"));
        assert_eq!(errors.len(), 1, "{errors:?}");
    }
}
