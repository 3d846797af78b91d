//! JSON request bodies, read strictly: as `application/json`, within the body limit, and with
//! no key repeated in any object. A parser keeps one of two equal keys, and which one differs
//! between parsers (serde_json keeps the last): `{"type": "offer_draw", "type": "resign"}`
//! must not mean one thing to a proxy that checked it and another to this server.

use crate::problem::HttpError;
use actix_web::dev::Payload;
use actix_web::http::StatusCode;
use actix_web::mime;
use actix_web::{web, FromRequest, HttpMessage, HttpRequest};
use app::{ApiCode, ApiError};
use futures_util::future::LocalBoxFuture;
use serde::de::{self, DeserializeOwned, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use std::collections::HashSet;
use std::fmt;

/// A JSON body of type `T`, read strictly (see the module).
pub struct Json<T>(pub T);

impl<T> Json<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> std::ops::Deref for Json<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: DeserializeOwned + 'static> FromRequest for Json<T> {
    type Error = HttpError;
    type Future = LocalBoxFuture<'static, Result<Json<T>, HttpError>>;

    fn from_request(request: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let is_json =
            request.mime_type().ok().flatten().is_some_and(|mime| {
                mime.subtype() == mime::JSON || mime.suffix() == Some(mime::JSON)
            });
        let bytes = web::Bytes::from_request(request, payload);
        let read = async move {
            if !is_json {
                return Err(ApiError::new(
                    ApiCode::UnsupportedMediaType,
                    "Send the body as JSON with Content-Type: application/json.",
                ));
            }
            let bytes = bytes.await.map_err(|error| {
                if error.as_response_error().status_code() == StatusCode::PAYLOAD_TOO_LARGE {
                    ApiError::new(ApiCode::PayloadTooLarge, "The body is larger than 64 KiB.")
                } else if let Some(late) = error
                    .as_error::<actix_web::error::PayloadError>()
                    .filter(|e| crate::connections::is_late_body(e))
                {
                    body_too_slow(late)
                } else {
                    ApiError::new(ApiCode::BadRequest, format!("Unreadable body: {error}."))
                }
            })?;
            parse(&bytes).map(Json)
        };
        Box::pin(async move { read.await.map_err(HttpError) })
    }
}

/// The answer to a body that did not arrive in time (`408`; the connection is then closed).
pub fn body_too_slow(error: &actix_web::error::PayloadError) -> ApiError {
    ApiError::new(
        ApiCode::RequestTimeout,
        format!("The request's body came too slowly: {error}. Send it again, whole."),
    )
}

/// `bytes` as a `T`, refused when not JSON, when a key repeats or when it does not fit `T`.
pub fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    check_unique_keys(bytes)?;
    serde_json::from_slice(bytes).map_err(|e| {
        if e.is_data() {
            ApiError::new(ApiCode::BadRequest, format!("The body does not fit: {e}."))
        } else {
            ApiError::new(
                ApiCode::MalformedJson,
                format!("The body is not valid JSON: {e}."),
            )
        }
    })
}

/// Refuses JSON with a key repeated in one object (at any depth), or that is not JSON.
pub fn check_unique_keys(bytes: &[u8]) -> Result<(), ApiError> {
    let mut reader = serde_json::Deserializer::from_slice(bytes);
    let checked = UniqueKeys
        .deserialize(&mut reader)
        .and_then(|()| reader.end());
    match checked {
        Ok(()) => Ok(()),
        Err(e) if e.is_data() => Err(ApiError::new(
            ApiCode::DuplicateKey,
            format!("The body names a key twice in one object ({e}): send each key once."),
        )),
        Err(e) => Err(ApiError::new(
            ApiCode::MalformedJson,
            format!("The body is not valid JSON: {e}."),
        )),
    }
}

/// Walks any JSON value, failing at the first object that repeats a key.
#[derive(Clone, Copy)]
struct UniqueKeys;

impl<'de> DeserializeSeed<'de> for UniqueKeys {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for UniqueKeys {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_none<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            map.next_value_seed(self)?;
            if !seen.insert(key) {
                return Err(de::Error::custom("a key repeated"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn code(body: &str) -> Option<String> {
        parse::<Value>(body.as_bytes())
            .err()
            .map(|e| e.code.to_string())
    }

    #[test]
    fn a_repeated_key_is_refused_at_any_depth() {
        assert_eq!(
            code(r#"{"type":"offer_draw","type":"resign"}"#).as_deref(),
            Some("duplicate_key")
        );
        assert_eq!(
            code(r#"{"kind":"altitude","options":{"target":60,"target":10}}"#).as_deref(),
            Some("duplicate_key")
        );
        assert_eq!(
            code(r#"[{"a":1},{"b":[{"c":1,"c":2}]}]"#).as_deref(),
            Some("duplicate_key")
        );
        // Escapes do not hide a repeat: both keys are "type".
        assert_eq!(
            code(r#"{"type":"a","typ\u0065":"b"}"#).as_deref(),
            Some("duplicate_key")
        );
    }

    #[test]
    fn equal_keys_in_different_objects_and_plain_json_pass() {
        assert_eq!(code(r#"{"a":{"a":1},"b":{"a":2}}"#), None);
        assert_eq!(code(r#"[1, "x", null, true, 2.5, -3, {"k": []}]"#), None);
        assert_eq!(code("{").as_deref(), Some("malformed_json"));
        assert_eq!(code(r#"{"a":1} x"#).as_deref(), Some("malformed_json"));
    }
}
