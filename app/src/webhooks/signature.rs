//! The signature of a notification, as Stripe signs its events: `t=<unix seconds>,v1=<hex>`,
//! where `v1` is the HMAC-SHA256 of `<t>.<exact body>` keyed with the webhook's secret (the
//! whole `whsec_...` string as UTF-8). The time is that of the attempt, so a receiver that
//! refuses a `t` more than [`TOLERANCE_SECONDS`] from its clock refuses a captured delivery
//! sent again later; within that window it dedupes by the delivery id.

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The header that carries the signature.
pub const SIGNATURE_HEADER: &str = "X-Avalanche-Signature";
/// The header that carries the notification's id, the same at every attempt.
pub const DELIVERY_HEADER: &str = "X-Avalanche-Delivery";
/// How far from its own clock a receiver should take a signature's time: five minutes, as
/// Stripe's libraries do.
pub const TOLERANCE_SECONDS: u64 = 300;

/// `t=<timestamp>,v1=<hex HMAC-SHA256 of "<timestamp>." and body, keyed with secret>`.
pub fn sign(secret: &str, timestamp: i64, body: &[u8]) -> String {
    // HMAC takes a key of any length, so this cannot fail.
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes())
        .unwrap_or_else(|_| unreachable!("HMAC accepts keys of any length"));
    mac.update(format!("{timestamp}.").as_bytes());
    mac.update(body);
    format!(
        "t={timestamp},v1={}",
        hex::encode(mac.finalize().into_bytes())
    )
}

#[cfg(test)]
mod tests {
    use super::sign;

    #[test]
    fn the_signature_is_the_published_hmac_sha256_of_time_and_body() {
        // The HMAC-SHA256 of `<t>.<body>`, computed here apart from `sign`.
        let whole = {
            use hmac::{Hmac, Mac};
            let mut mac = Hmac::<sha2::Sha256>::new_from_slice(b"Jefe").unwrap();
            mac.update(b"1700000000.what do ya want for nothing?");
            hex::encode(mac.finalize().into_bytes())
        };
        assert_eq!(
            sign("Jefe", 1_700_000_000, b"what do ya want for nothing?"),
            format!("t=1700000000,v1={whole}")
        );
        // Another time, another signature: a signature is no key for another moment.
        assert_ne!(
            sign("Jefe", 1_700_000_000, b"x")[13..],
            sign("Jefe", 1_700_000_001, b"x")[13..]
        );
    }
}
