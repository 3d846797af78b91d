//! JSON request bodies, read strictly: as `application/json`, within the body limit, and with
//! no key repeated in any object with another value. A parser keeps one of two equal keys,
//! and which one differs between parsers (serde_json keeps the last): `{"type": "offer_draw",
//! "type": "resign"}` must not mean one thing to a proxy that checked it and another to this
//! server. A key repeated with the very same plain value (`{"kind": "avalanche", "kind":
//! "avalanche", ...}`) means one thing to every parser, and is what a client serialising a
//! tagged union with serde writes when the variant holds its tag too (openapi-generator's
//! `rust` client does): it is read as if written once.

use crate::problem::HttpError;
use actix_web::dev::Payload;
use actix_web::http::StatusCode;
use actix_web::mime;
use actix_web::{web, FromRequest, HttpMessage, HttpRequest};
use app::{ApiCode, ApiError};
use futures_util::future::LocalBoxFuture;
use serde::de::{self, DeserializeOwned, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use std::collections::HashMap;
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

/// `bytes` as a `T`, refused when not JSON, when a key repeats with another value or when it
/// does not fit `T`.
pub fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    read_checked(bytes)?.map_err(|e| {
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

/// `bytes` as a `T` once its keys are checked ([`check_unique_keys`]): the outer error is
/// the check's problem, the inner one serde's, for the caller to put in its words.
pub fn read_checked<T: DeserializeOwned>(
    bytes: &[u8],
) -> Result<Result<T, serde_json::Error>, ApiError> {
    Ok(if check_unique_keys(bytes)? == Repeats::Same {
        // serde refuses a field twice: read once into a map, which keeps one of the equals.
        serde_json::from_slice::<serde_json::Value>(bytes).and_then(serde_json::from_value)
    } else {
        serde_json::from_slice(bytes)
    })
}

/// Whether a body repeats a key (with the same plain value each time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repeats {
    None,
    Same,
}

/// Refuses JSON with a key repeated in one object (at any depth) with another value, or with
/// an object or array as its value, or that is not JSON.
pub fn check_unique_keys(bytes: &[u8]) -> Result<Repeats, ApiError> {
    let mut reader = serde_json::Deserializer::from_slice(bytes);
    let mut repeats = Repeats::None;
    let checked = UniqueKeys {
        repeats: &mut repeats,
    }
    .deserialize(&mut reader)
    .and_then(|_| reader.end());
    match checked {
        Ok(()) => Ok(repeats),
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

/// A plain JSON value, as read, to compare a repeated key's values.
#[derive(Debug, PartialEq)]
enum Plain {
    Bool(bool),
    I64(i64),
    U64(u64),
    F64(f64),
    Str(String),
    Null,
}

/// Walks any JSON value, failing at the first object that repeats a key with another value
/// (or with an object or array); answers the value when it is plain.
struct UniqueKeys<'r> {
    repeats: &'r mut Repeats,
}

impl<'de> DeserializeSeed<'de> for UniqueKeys<'_> {
    type Value = Option<Plain>;
    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Option<Plain>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for UniqueKeys<'_> {
    type Value = Option<Plain>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Option<Plain>, E> {
        Ok(Some(Plain::Bool(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Option<Plain>, E> {
        Ok(Some(Plain::I64(v)))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Option<Plain>, E> {
        Ok(Some(Plain::U64(v)))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Option<Plain>, E> {
        Ok(Some(Plain::F64(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Option<Plain>, E> {
        Ok(Some(Plain::Str(v.to_string())))
    }
    fn visit_unit<E>(self) -> Result<Option<Plain>, E> {
        Ok(Some(Plain::Null))
    }
    fn visit_none<E>(self) -> Result<Option<Plain>, E> {
        Ok(Some(Plain::Null))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<Plain>, A::Error> {
        while seq
            .next_element_seed(UniqueKeys {
                repeats: &mut *self.repeats,
            })?
            .is_some()
        {}
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<Plain>, A::Error> {
        let mut seen: HashMap<String, Option<Plain>> = HashMap::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(UniqueKeys {
                repeats: &mut *self.repeats,
            })?;
            match seen.get(&key) {
                None => {
                    seen.insert(key, value);
                }
                Some(Some(first)) if value.as_ref() == Some(first) => {
                    *self.repeats = Repeats::Same;
                }
                Some(_) => return Err(de::Error::custom("a key repeated")),
            }
        }
        Ok(None)
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
    fn a_key_repeated_with_the_same_plain_value_is_read_once() {
        let read: Value = parse(br#"{"kind":"avalanche","kind":"avalanche","seats":2}"#)
            .expect("the same value twice");
        assert_eq!(read, serde_json::json!({"kind": "avalanche", "seats": 2}));
        #[derive(Debug, serde::Deserialize, PartialEq)]
        #[serde(tag = "type", rename_all = "snake_case")]
        enum Command {
            Resign,
            Turn { push: String },
        }
        let command: Command = parse(br#"{"type":"turn","type":"turn","push":"a6"}"#)
            .expect("a tagged enum with its tag twice");
        assert_eq!(command, Command::Turn { push: "a6".into() });
        for body in [
            r#"{"seats":2,"seats":2.0}"#,
            r#"{"a":{"b":1},"a":{"b":1}}"#,
            r#"{"a":[1],"a":[1]}"#,
            r#"{"a":null,"a":"null"}"#,
        ] {
            assert_eq!(code(body).as_deref(), Some("duplicate_key"), "{body}");
        }
    }

    #[test]
    fn equal_keys_in_different_objects_and_plain_json_pass() {
        assert_eq!(code(r#"{"a":{"a":1},"b":{"a":2}}"#), None);
        assert_eq!(code(r#"[1, "x", null, true, 2.5, -3, {"k": []}]"#), None);
        assert_eq!(code("{").as_deref(), Some("malformed_json"));
        assert_eq!(code(r#"{"a":1} x"#).as_deref(), Some("malformed_json"));
    }
}
