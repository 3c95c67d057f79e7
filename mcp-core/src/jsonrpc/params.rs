//! [`Params`]: the `params` of an incoming message (or another object a client sent, such as
//! a tool's `arguments`), kept as the JSON text the client sent.
//!
//! A message is parsed once into its envelope; its `params` stay text until the method that
//! serves it reads them, straight into its own typed parameters ([`Params::parse`]). No
//! `serde_json::Value` tree is built for them, no key is hashed, and what a method does not
//! read (the `_meta` of a 2026-07-28 request once the dispatcher has checked it) is skipped
//! over rather than copied. A single member, such as the `name` of a call, is read without
//! the rest ([`Params::member`]).

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// The `params` object of an incoming message, as JSON text (absent params read as `{}`);
/// also the `arguments` object of a tool call or a prompt, read the same way.
///
/// ```
/// use typemcp_core::jsonrpc::{IncomingMessage, parse_message};
///
/// let line = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#;
/// let Ok(IncomingMessage::Request(request)) = parse_message(line) else { unreachable!() };
/// assert_eq!(request.params.str_member("name").as_deref(), Some("echo"));
///
/// #[derive(serde::Deserialize)]
/// struct Call { name: String }
/// let call: Call = request.params.parse().unwrap();
/// assert_eq!(call.name, "echo");
/// ```
#[derive(Clone, Default)]
pub struct Params(Option<Box<RawValue>>);

impl Params {
    /// Params holding `object`.
    ///
    /// ```
    /// use typemcp_core::jsonrpc::Params;
    /// let params = Params::from_object(serde_json::json!({"uri": "file:///a"}).as_object().unwrap().clone());
    /// assert_eq!(params.text(), r#"{"uri":"file:///a"}"#);
    /// ```
    pub fn from_object(object: Map<String, Value>) -> Self {
        Self(serde_json::value::to_raw_value(&object).ok())
    }

    /// Params from the raw JSON of an object (the parser checks it is one).
    pub(crate) fn from_raw(raw: Box<RawValue>) -> Self {
        Self(Some(raw))
    }

    /// The JSON text of the object (`{}` when the message had no params).
    pub fn text(&self) -> &str {
        self.0.as_deref().map_or("{}", RawValue::get)
    }

    /// Whether the object has no members.
    pub fn is_empty(&self) -> bool {
        let text = self.text().trim();
        let inside = text.strip_prefix('{').and_then(|t| t.strip_suffix('}'));
        inside.is_none_or(|inside| inside.trim().is_empty())
    }

    /// Reads the params into `T`, straight from the text.
    ///
    /// # Errors
    ///
    /// Serde's error when the params do not make a `T`.
    pub fn parse<'a, T: Deserialize<'a>>(&'a self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.text())
    }

    /// The params as a `Value` tree (for code that wants one; the methods never need it).
    pub fn to_object(&self) -> Map<String, Value> {
        self.parse().unwrap_or_default()
    }

    /// The raw JSON of the member `key`, if the object has one; the others are skipped.
    pub fn member(&self, key: &str) -> Option<&RawValue> {
        member_of(self.text(), key)
    }

    /// The member `key` when it is a string.
    pub fn str_member(&self, key: &str) -> Option<Cow<'_, str>> {
        self.member(key).and_then(as_str)
    }
}

/// The raw JSON of the member `key` of the object `text` (`None` when `text` is not an
/// object or has no such member; the last one when it has several).
fn member_of<'a>(text: &'a str, key: &str) -> Option<&'a RawValue> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    Member { key }.deserialize(&mut deserializer).ok().flatten()
}

/// A raw JSON value read as a string, when it is one: borrowed from the text, unless it has
/// escapes to decode.
///
/// ```
/// use std::borrow::Cow;
/// use serde_json::value::RawValue;
/// let plain = RawValue::from_string(r#""2026-07-28""#.to_owned()).unwrap();
/// assert!(matches!(typemcp_core::jsonrpc::as_str(&plain), Some(Cow::Borrowed("2026-07-28"))));
/// let escaped = RawValue::from_string(r#""a\nb""#.to_owned()).unwrap();
/// assert_eq!(typemcp_core::jsonrpc::as_str(&escaped).as_deref(), Some("a\nb"));
/// let number = RawValue::from_string("3".to_owned()).unwrap();
/// assert_eq!(typemcp_core::jsonrpc::as_str(&number), None);
/// ```
pub fn as_str(raw: &RawValue) -> Option<Cow<'_, str>> {
    // Serde reads a `Cow<str>` as a copy always: a `&str` borrows, and fails on escapes.
    match serde_json::from_str::<&str>(raw.get()) {
        Ok(text) => Some(Cow::Borrowed(text)),
        Err(_) => serde_json::from_str::<String>(raw.get())
            .ok()
            .map(Cow::Owned),
    }
}

/// Finds one member of an object, skipping the others.
struct Member<'k> {
    key: &'k str,
}

impl<'de> DeserializeSeed<'de> for Member<'_> {
    type Value = Option<&'de RawValue>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Member<'_> {
    type Value = Option<&'de RawValue>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == self.key {
                found = Some(map.next_value::<&'de RawValue>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// Reads a JSON object as its text: anything else is refused with the message a
/// `serde_json::Map` gives it (`invalid type: string "x", expected a map`). The text is kept
/// as a `serde_json` `RawValue`, so only `serde_json`'s deserializers can read one.
///
/// ```
/// use typemcp_core::jsonrpc::Params;
///
/// #[derive(serde::Deserialize)]
/// struct Call { arguments: Option<Params> }
/// let call: Call = serde_json::from_str(r#"{"arguments":{"text":"hi"}}"#).unwrap();
/// assert_eq!(call.arguments.unwrap().text(), r#"{"text":"hi"}"#);
/// assert!(serde_json::from_str::<Call>(r#"{"arguments":"hi"}"#).is_err());
/// ```
impl<'de> Deserialize<'de> for Params {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        if raw.get().starts_with('{') {
            return Ok(Self(Some(raw)));
        }
        // Not an object: the reason a map gives.
        let reason = serde_json::from_str::<Map<String, Value>>(raw.get())
            .err()
            .map_or_else(|| "expected a map".to_owned(), |err| without_position(&err));
        Err(de::Error::custom(reason))
    }
}

/// Serde's message without the position in the text it adds (`at line 1 column 42`): what a
/// client is told about params or arguments it sent, which are one member of a message
/// whose lines it never sees.
///
/// ```
/// let err = serde_json::from_str::<u8>("\"x\"").unwrap_err();
/// assert_eq!(
///     typemcp_core::jsonrpc::without_position(&err),
///     "invalid type: string \"x\", expected u8"
/// );
/// ```
pub fn without_position(err: &serde_json::Error) -> String {
    let message = err.to_string();
    let position = format!(" at line {} column {}", err.line(), err.column());
    match message.strip_suffix(&position) {
        Some(message) => message.to_owned(),
        None => message,
    }
}

impl fmt::Debug for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Params").field(&self.text()).finish()
    }
}

impl PartialEq for Params {
    fn eq(&self, other: &Self) -> bool {
        self.text() == other.text()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(text: &str) -> Params {
        Params::from_raw(RawValue::from_string(text.to_owned()).unwrap())
    }

    #[test]
    fn members_are_read_alone_and_escapes_decoded() {
        let p = params(r#"{"arguments":{"name":"inner"},"name":"a\"b","n":3}"#);
        assert_eq!(p.str_member("name").as_deref(), Some("a\"b"));
        assert_eq!(p.member("n").map(RawValue::get), Some("3"));
        assert_eq!(p.str_member("n"), None);
        assert!(p.member("missing").is_none());
        assert_eq!(
            p.member("arguments").map(RawValue::get),
            Some(r#"{"name":"inner"}"#)
        );
        assert!(!p.is_empty());
        assert!(Params::default().is_empty());
        assert_eq!(Params::default().text(), "{}");
    }

    #[test]
    fn parses_into_types_and_trees() {
        #[derive(Deserialize)]
        struct Named<'a> {
            #[serde(borrow)]
            name: Cow<'a, str>,
        }
        let p = params(r#"{"name":"x","_meta":{"k":1}}"#);
        assert_eq!(p.parse::<Named<'_>>().unwrap().name, "x");
        assert_eq!(p.to_object()["_meta"]["k"], 1);
        assert_eq!(Params::from_object(p.to_object()), p);
    }

    #[test]
    fn only_objects_read_as_params() {
        #[derive(Debug, Deserialize)]
        struct Call {
            #[serde(default)]
            arguments: Option<Params>,
        }
        let read = |text: &str| serde_json::from_str::<Call>(text).map(|c| c.arguments);
        assert_eq!(
            read(r#"{"arguments":{"a":[1]}}"#).unwrap().unwrap().text(),
            r#"{"a":[1]}"#
        );
        assert!(read(r#"{"arguments":null}"#).unwrap().is_none());
        assert!(read("{}").unwrap().is_none());
        for bad in [r#""x""#, "[1]", "3", "true"] {
            let err = read(&format!(r#"{{"arguments":{bad}}}"#)).unwrap_err();
            assert!(
                without_position(&err).starts_with("invalid type: ")
                    && without_position(&err).ends_with("expected a map"),
                "{bad}: {err}"
            );
        }
    }
}
