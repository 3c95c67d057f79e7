//! Sealed mode: XChaCha20-Poly1305 (sealing subkey), the payload encrypted, the rest bound
//! as associated data.
//!
//! The associated data is the domain, key id, expiry and binding, each length-prefixed; the
//! random 24-byte nonce travels in the token and enters the cipher itself. Changing any
//! field, or opening under another binding, fails the Poly1305 tag, checked in constant time
//! before anything is decrypted.

use chacha20poly1305::aead::AeadInOut;
use chacha20poly1305::{Tag, XNonce};

use super::format::{SEALED_NONCE, length_prefixed};
use super::{Binding, SigningKey, StateError};

/// Separates this associated data from any other use of the subkey.
const DOMAIN: &[u8] = b"io.mcp-rust/request-state/v3 sealed";
/// The Poly1305 tag at the end of the ciphertext.
const TAG_LEN: usize = 16;

/// What a sealed token binds besides its ciphertext.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sealed<'a> {
    pub(crate) kid: &'a [u8],
    pub(crate) expiry: u64,
    pub(crate) nonce: &'a [u8; SEALED_NONCE],
    pub(crate) binding: &'a Binding,
}

impl Sealed<'_> {
    /// The ciphertext of `payload`, its tag appended.
    pub(crate) fn seal(&self, key: &SigningKey, payload: &[u8]) -> Vec<u8> {
        let mut buffer = Vec::with_capacity(payload.len() + TAG_LEN);
        buffer.extend_from_slice(payload);
        let nonce = XNonce::from(*self.nonce);
        match key
            .cipher()
            .encrypt_inout_detached(&nonce, &self.aad(), buffer.as_mut_slice().into())
        {
            Ok(tag) => {
                buffer.extend_from_slice(&tag);
                buffer
            }
            // Only past 256 GiB of payload: an empty ciphertext, which never opens.
            Err(_) => Vec::new(),
        }
    }

    /// The payload, if `ciphertext` is authentic for these fields under `key`.
    pub(crate) fn open(
        &self,
        key: &SigningKey,
        mut ciphertext: Vec<u8>,
    ) -> Result<Vec<u8>, StateError> {
        let len = ciphertext
            .len()
            .checked_sub(TAG_LEN)
            .ok_or(StateError::BadSignature)?;
        let (message, tag) = ciphertext.split_at_mut(len);
        let tag = Tag::try_from(&*tag).map_err(|_| StateError::BadSignature)?;
        let nonce = XNonce::from(*self.nonce);
        key.cipher()
            .decrypt_inout_detached(&nonce, &self.aad(), message.into(), &tag)
            .map_err(|_| StateError::BadSignature)?;
        ciphertext.truncate(len);
        Ok(ciphertext)
    }

    fn aad(&self) -> Vec<u8> {
        let expiry = self.expiry.to_be_bytes();
        let fields = [DOMAIN, self.kid, &expiry, self.binding.as_bytes()];
        let mut aad = Vec::with_capacity(
            4 * 8 + DOMAIN.len() + self.kid.len() + 8 + self.binding.as_bytes().len(),
        );
        length_prefixed(fields, |bytes| aad.extend_from_slice(bytes));
        aad
    }
}
