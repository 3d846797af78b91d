//! The signature of a notification: HMAC-SHA256 of the exact body, keyed with the webhook's
//! secret (the whole `whsec_...` string as UTF-8), sent as `sha256=<hex>`.

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The header that carries the signature.
pub const SIGNATURE_HEADER: &str = "X-Avalanche-Signature";
/// The header that carries the notification's id, the same at every attempt.
pub const DELIVERY_HEADER: &str = "X-Avalanche-Delivery";

/// `sha256=<hex HMAC-SHA256 of body keyed with secret>`.
pub fn sign(secret: &str, body: &[u8]) -> String {
    // HMAC takes a key of any length, so this cannot fail.
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes())
        .unwrap_or_else(|_| unreachable!("HMAC accepts keys of any length"));
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

#[cfg(test)]
mod tests {
    use super::sign;

    #[test]
    fn the_signature_is_the_published_hmac_sha256() {
        // RFC 4231, test case 2.
        assert_eq!(
            sign("Jefe", b"what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }
}
