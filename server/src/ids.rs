//! Room ids and secret tokens.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;
use subtle::ConstantTimeEq;

/// Crockford's base 32 in lower case: no i, l, o or u, so an id read aloud or typed by hand is hard
/// to get wrong.
const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

/// The length of a room id: 13 characters of 5 bits carry 65 random bits.
pub(crate) const ROOM_ID_LEN: usize = 13;

/// A new room id: 65 random bits.
pub(crate) fn new_room_id() -> String {
    let mut bytes = [0u8; 16];
    rand::rng().fill_bytes(&mut bytes);
    let bits = u128::from_le_bytes(bytes);
    (0..ROOM_ID_LEN)
        .map(|i| ALPHABET[((bits >> (5 * i)) & 31) as usize] as char)
        .collect()
}

/// Whether `id` has the shape of a room id (checked before any lookup).
pub(crate) fn is_room_id(id: &str) -> bool {
    id.len() == ROOM_ID_LEN && id.bytes().all(|b| ALPHABET.contains(&b))
}

/// A new secret token: 128 random bits, URL-safe base 64.
pub(crate) fn new_token() -> String {
    let mut bytes = [0u8; 16];
    rand::rng().fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Whether `text` has the shape of a token this server makes (22 characters of URL-safe base
/// 64): what a stored record's tokens are checked against.
pub(crate) fn is_token(text: &str) -> bool {
    text.len() == 22
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Compares a presented token with the real one in constant time.
pub(crate) fn token_matches(presented: &str, real: &str) -> bool {
    presented.len() == real.len() && bool::from(presented.as_bytes().ct_eq(real.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_short_and_distinct() {
        let a = new_room_id();
        assert_eq!(a.len(), ROOM_ID_LEN);
        assert!(is_room_id(&a));
        assert_ne!(a, new_room_id());
        assert!(!is_room_id("ABCDEFGHJKMNP"));
        assert!(!is_room_id("0123456789ab"));
    }

    #[test]
    fn tokens_compare_exactly() {
        let t = new_token();
        assert_eq!(t.len(), 22);
        assert!(token_matches(&t, &t.clone()));
        assert!(!token_matches(&new_token(), &t));
        assert!(!token_matches("", &t));
        assert!(is_token(&t));
        assert!(!is_token(&t[1..]) && !is_token(&format!("{}=", &t[1..])));
    }
}
