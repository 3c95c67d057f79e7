//! What a state is bound to: unambiguous, length-prefixed binding material.

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::canonical;

/// A hasher written to as a writer.
struct Hashing(Sha256);

impl std::io::Write for Hashing {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Binding material folded into a token's signature. Built from length-prefixed parts, so
/// `("ab", "c")` and `("a", "bc")` never collide.
///
/// The material never travels: a token carries nothing of it, and `Debug` prints only its
/// length.
///
/// ```
/// use typemcp_core::state::Binding;
/// assert_ne!(Binding::from_parts(["ab", "c"]), Binding::from_parts(["a", "bc"]));
/// ```
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Binding(Vec<u8>);

impl std::fmt::Debug for Binding {
    /// Only the length: the material may hold a caller's identity, and even a digest of it
    /// would let a reader of the log test guesses offline.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Binding(<{} bytes>)", self.0.len())
    }
}

impl Binding {
    /// No binding: the state verifies for any request (only for states whose tampering can do
    /// no harm).
    pub fn none() -> Self {
        Self(Vec::new())
    }

    /// A binding made of these parts, in order.
    pub fn from_parts<I, P>(parts: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: AsRef<[u8]>,
    {
        let mut bytes = Vec::new();
        for part in parts {
            let part = part.as_ref();
            bytes.extend_from_slice(&(part.len() as u64).to_be_bytes());
            bytes.extend_from_slice(part);
        }
        Self(bytes)
    }

    /// The default binding of a request: subject, method, target and argument digest.
    pub fn derive(request: &BindingRequest<'_>) -> Self {
        // The canonical text goes straight into the hash: none is kept.
        let mut hasher = Hashing(Sha256::new());
        canonical::write(request.arguments, &mut hasher);
        let digest = hasher.0.finalize();
        let parts = [
            request.subject.unwrap_or("").as_bytes(),
            request.method.as_bytes(),
            request.target.as_bytes(),
            digest.as_slice(),
        ];
        let mut bytes = Vec::with_capacity(parts.iter().map(|part| 8 + part.len()).sum());
        for part in parts {
            bytes.extend_from_slice(&(part.len() as u64).to_be_bytes());
            bytes.extend_from_slice(part);
        }
        Self(bytes)
    }

    /// The encoded material.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

/// What the default binding policy looks at in a request.
#[derive(Debug, Clone, Copy)]
pub struct BindingRequest<'a> {
    /// The authenticated caller (`None` over stdio or on an unauthenticated endpoint).
    pub subject: Option<&'a str>,
    /// `tools/call`, `prompts/get` or `resources/read`.
    pub method: &'a str,
    /// The tool name, prompt name or resource URI.
    pub target: &'a str,
    /// The request's arguments (`{}` for resources).
    pub arguments: &'a Value,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn derive(subject: Option<&str>, method: &str, target: &str, args: Value) -> Binding {
        Binding::derive(&BindingRequest {
            subject,
            method,
            target,
            arguments: &args,
        })
    }

    #[test]
    fn the_digest_is_of_the_canonical_text_as_it_always_was() {
        // States minted before the text was hashed as it is written still verify.
        let args = json!({"b": [1, "x\u{e9}\"q"], "a": {"z": null, "y": 2.5}});
        let digest = Sha256::digest(super::super::canonical_json(&args).as_bytes());
        let parts: [&[u8]; 4] = [b"ann", b"tools/call", b"deploy", digest.as_slice()];
        let expected = Binding::from_parts(parts);
        assert_eq!(derive(Some("ann"), "tools/call", "deploy", args), expected);
    }

    #[test]
    fn every_component_changes_the_binding() {
        let base = derive(
            Some("ann"),
            "tools/call",
            "deploy",
            json!({"target": "staging"}),
        );
        assert_eq!(
            base,
            derive(
                Some("ann"),
                "tools/call",
                "deploy",
                json!({"target": "staging"})
            )
        );
        assert_ne!(
            base,
            derive(
                Some("bob"),
                "tools/call",
                "deploy",
                json!({"target": "staging"})
            )
        );
        assert_ne!(
            base,
            derive(None, "tools/call", "deploy", json!({"target": "staging"}))
        );
        assert_ne!(
            base,
            derive(
                Some("ann"),
                "prompts/get",
                "deploy",
                json!({"target": "staging"})
            )
        );
        assert_ne!(
            base,
            derive(
                Some("ann"),
                "tools/call",
                "other",
                json!({"target": "staging"})
            )
        );
        assert_ne!(
            base,
            derive(
                Some("ann"),
                "tools/call",
                "deploy",
                json!({"target": "production"})
            )
        );
    }

    #[test]
    fn debug_prints_only_the_length() {
        let binding = derive(Some("ann"), "tools/call", "deploy", json!({}));
        let len = binding.as_bytes().len();
        assert_eq!(format!("{binding:?}"), format!("Binding(<{len} bytes>)"));
        assert_eq!(format!("{:?}", Binding::none()), "Binding(<0 bytes>)");
    }

    #[test]
    fn argument_key_order_does_not_matter() {
        assert_eq!(
            derive(None, "m", "t", json!({"a": 1, "b": {"c": 2, "d": 3}})),
            derive(None, "m", "t", json!({"b": {"d": 3, "c": 2}, "a": 1}))
        );
    }
}
