//! Secrets at rest: games' seeds and webhooks' signing secrets are sealed (ChaCha20-Poly1305,
//! a random nonce each) under a key the store does not hold, so that a copy of the database
//! alone (a backup, a dump of PostgreSQL, a disk) reveals no hidden card and cannot forge a
//! notification.
//!
//! The key is 32 random bytes, written as 64 hex digits in a file of its own, readable by its
//! owner only (`--secrets-key`; by default `secrets.key` in the sled directory, created on
//! first start). Every sealed value is bound to where it lives (the game and the secret's
//! name, or the webhook), so that sealed values cannot be swapped between games.
//!
//! The store records a check value sealed under the key (`meta/secrets_key`): a server given
//! another key than the one the store's secrets were sealed with refuses to start, rather
//! than failing on every game later. Stores written before secrets were sealed are sealed at
//! the first start (see `Games::seal_legacy_secrets`); until then their secrets are read in
//! clear, which their shape tells apart (see `open_seeds`).

use rand_core::{OsRng, TryRngCore};
use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, CHACHA20_POLY1305, NONCE_LEN};
use std::io::Write;
use std::path::{Path, PathBuf};
use storage::Storage;

/// The key's file in the sled directory when `--secrets-key` names none.
pub const DEFAULT_KEY_FILE: &str = "secrets.key";
/// The first bytes of every sealed value (then the nonce, then the ciphertext and its tag).
const MAGIC: &[u8; 5] = b"avs1:";
/// What sealing adds to a value: 5 + 12 + 16 = 33 bytes, so a sealed run of 32-byte seeds is
/// never a multiple of 32 bytes long, and a seed stored in clear always is.
const OVERHEAD: usize = MAGIC.len() + NONCE_LEN + 16;
/// Where the store keeps the check value of its key.
const CHECK: (&str, &str) = ("meta", "secrets_key");
const CHECK_CONTEXT: &[u8] = b"avalanche secrets key check";
const CHECK_TEXT: &[u8] = b"the key of this store's secrets";
/// How a sealed webhook secret starts in its record (a secret in clear starts `whsec_`).
const SEALED_TEXT: &str = "sealed:";

#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("cannot read the secrets key {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot create the secrets key {path}: {source}")]
    Create {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the secrets key {path} is not 64 hexadecimal digits")]
    Malformed { path: PathBuf },
    #[error(
        "the secrets key {path} is not the key this store's secrets were sealed with: give the \
         store's own key with --secrets-key"
    )]
    NotTheStores { path: PathBuf },
    #[error(
        "the key file {path} is missing, and this store's secrets are sealed with a key: put \
         the store's own key file back (it is kept apart from the store's backups); a new key \
         would open none of them"
    )]
    Missing { path: PathBuf },
    #[error("cannot check the secrets key against the store: {0}")]
    Store(#[from] storage::StorageError),
    #[error("cannot draw random bytes from the operating system: {0}")]
    Random(String),
}

/// A value that could not be unsealed: altered, sealed under another key or for another place.
#[derive(Debug, thiserror::Error)]
#[error("a sealed secret does not open under this server's key")]
pub struct Unsealable;

/// The key secrets are sealed with.
pub struct SecretsKey {
    key: LessSafeKey,
    /// Signs what the server hands out and must recognise later (mail reply addresses,
    /// unsubscribe links): derived from the key, so every server of a store has the same.
    tags: ring::hmac::Key,
    /// Where it was read from, to name it in messages (`None`: made for this process).
    path: Option<PathBuf>,
}

impl std::fmt::Debug for SecretsKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key itself.
        f.debug_struct("SecretsKey")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

fn random<const N: usize>() -> Result<[u8; N], KeyError> {
    let mut bytes = [0u8; N];
    OsRng
        .try_fill_bytes(&mut bytes)
        .map_err(|e| KeyError::Random(e.to_string()))?;
    Ok(bytes)
}

impl SecretsKey {
    fn of(bytes: &[u8; 32], path: Option<PathBuf>) -> SecretsKey {
        let unbound = match UnboundKey::new(&CHACHA20_POLY1305, bytes) {
            Ok(key) => key,
            // 32 bytes is this algorithm's key length: nothing else can happen.
            Err(_) => unreachable!("a ChaCha20-Poly1305 key is 32 bytes"),
        };
        let derived = ring::hmac::sign(
            &ring::hmac::Key::new(ring::hmac::HMAC_SHA256, bytes),
            b"avalanche: tags",
        );
        SecretsKey {
            key: LessSafeKey::new(unbound),
            tags: ring::hmac::Key::new(ring::hmac::HMAC_SHA256, derived.as_ref()),
            path,
        }
    }

    /// A key of 32 bytes held elsewhere (a message's own key).
    pub fn from_bytes(bytes: &[u8; 32]) -> SecretsKey {
        SecretsKey::of(bytes, None)
    }

    /// A new random key, for this process only (tests; a store sealed with it cannot be read
    /// by another process).
    pub fn generate() -> Result<SecretsKey, KeyError> {
        Ok(SecretsKey::of(&random::<32>()?, None))
    }

    /// The key of `store` in `path`: read from the file, or created there (readable by its
    /// owner only) when there is no file and the store seals nothing yet. A store that already
    /// holds sealed secrets is never given a new key: without its file this refuses.
    pub fn load_or_create_for(path: &Path, store: &dyn Storage) -> Result<SecretsKey, KeyError> {
        if !path.exists() && store.get_record(CHECK.0, CHECK.1)?.is_some() {
            return Err(KeyError::Missing {
                path: path.to_path_buf(),
            });
        }
        SecretsKey::load_or_create(path)
    }

    /// The key in `path`, created there (readable by its owner only) when there is no file.
    pub fn load_or_create(path: &Path) -> Result<SecretsKey, KeyError> {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                let bytes: [u8; 32] = hex::decode(text.trim())
                    .ok()
                    .and_then(|bytes| bytes.try_into().ok())
                    .ok_or_else(|| KeyError::Malformed {
                        path: path.to_path_buf(),
                    })?;
                warn_if_readable_by_others(path);
                Ok(SecretsKey::of(&bytes, Some(path.to_path_buf())))
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                let bytes = random::<32>()?;
                create_private(path, format!("{}\n", hex::encode(bytes)).as_bytes()).map_err(
                    |source| KeyError::Create {
                        path: path.to_path_buf(),
                        source,
                    },
                )?;
                tracing::info!(path = %path.display(), "created the key that seals the store's secrets");
                Ok(SecretsKey::of(&bytes, Some(path.to_path_buf())))
            }
            Err(source) => Err(KeyError::Read {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    fn name(&self) -> PathBuf {
        self.path
            .clone()
            .unwrap_or_else(|| PathBuf::from("(the key made for this process)"))
    }

    /// Makes sure `store`'s secrets are sealed with this key: a store that has a check value
    /// must open it; a store without one is given one.
    pub fn bind(&self, store: &dyn Storage) -> Result<(), KeyError> {
        match store.get_record(CHECK.0, CHECK.1)? {
            Some(check) => match self.open(CHECK_CONTEXT, &check) {
                Ok(text) if text == CHECK_TEXT => Ok(()),
                _ => Err(KeyError::NotTheStores { path: self.name() }),
            },
            None => {
                let check = self.seal(CHECK_CONTEXT, CHECK_TEXT)?;
                store.put_record(CHECK.0, CHECK.1, &check)?;
                Ok(())
            }
        }
    }

    /// `plain` sealed for `context` (where it will be stored).
    pub fn seal(&self, context: &[u8], plain: &[u8]) -> Result<Vec<u8>, KeyError> {
        let nonce = random::<NONCE_LEN>()?;
        let mut sealed = Vec::with_capacity(plain.len() + OVERHEAD);
        sealed.extend_from_slice(MAGIC);
        sealed.extend_from_slice(&nonce);
        sealed.extend_from_slice(plain);
        let mut body = sealed.split_off(MAGIC.len() + NONCE_LEN);
        self.key
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(context),
                &mut body,
            )
            // Only a value longer than about 256 GB cannot be sealed.
            .map_err(|_| KeyError::Random("a secret too long to seal".into()))?;
        sealed.extend_from_slice(&body);
        Ok(sealed)
    }

    /// The value `sealed` holds, when it was sealed with this key for `context`.
    pub fn open(&self, context: &[u8], sealed: &[u8]) -> Result<Vec<u8>, Unsealable> {
        if !is_sealed(sealed) {
            return Err(Unsealable);
        }
        let nonce: [u8; NONCE_LEN] = sealed[MAGIC.len()..MAGIC.len() + NONCE_LEN]
            .try_into()
            .map_err(|_| Unsealable)?;
        let mut body = sealed[MAGIC.len() + NONCE_LEN..].to_vec();
        let plain = self
            .key
            .open_in_place(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(context),
                &mut body,
            )
            .map_err(|_| Unsealable)?;
        Ok(plain.to_vec())
    }

    /// Seeds (one or several of 32 bytes) sealed for secret `name` of game `game`.
    pub fn seal_seeds(&self, game: &str, name: &str, seeds: &[u8]) -> Result<Vec<u8>, KeyError> {
        self.seal(&seed_context(game, name), seeds)
    }

    /// The seeds stored as secret `name` of game `game`: sealed, or in clear in a store written
    /// before secrets were sealed (a multiple of 32 bytes, which a sealed value never is).
    pub fn open_seeds(&self, game: &str, name: &str, stored: &[u8]) -> Result<Vec<u8>, Unsealable> {
        if stored_in_clear(stored) {
            return Ok(stored.to_vec());
        }
        self.open(&seed_context(game, name), stored)
    }

    /// The HMAC-SHA256 of `message` under a key derived from this one: a tag only a server
    /// of this store can make, such as a mail reply address.
    pub fn tag(&self, message: &[u8]) -> [u8; 32] {
        let mut tag = [0u8; 32];
        tag.copy_from_slice(ring::hmac::sign(&self.tags, message).as_ref());
        tag
    }

    /// A webhook's signing secret as its record keeps it.
    pub fn seal_text(&self, webhook: &str, secret: &str) -> Result<String, KeyError> {
        let sealed = self.seal(&webhook_context(webhook), secret.as_bytes())?;
        Ok(format!("{SEALED_TEXT}{}", hex::encode(sealed)))
    }

    /// A webhook's signing secret from its record (sealed, or in clear in an older record).
    pub fn open_text(&self, webhook: &str, stored: &str) -> Result<String, Unsealable> {
        let Some(sealed) = stored.strip_prefix(SEALED_TEXT) else {
            return Ok(stored.to_string());
        };
        let sealed = hex::decode(sealed).map_err(|_| Unsealable)?;
        let plain = self.open(&webhook_context(webhook), &sealed)?;
        String::from_utf8(plain).map_err(|_| Unsealable)
    }
}

/// Whether seeds are stored in clear (written before secrets were sealed).
pub fn stored_in_clear(stored: &[u8]) -> bool {
    stored.len().is_multiple_of(32)
}

/// Whether a webhook's secret is stored in clear.
pub fn text_in_clear(stored: &str) -> bool {
    !stored.starts_with(SEALED_TEXT)
}

fn is_sealed(value: &[u8]) -> bool {
    value.len() >= OVERHEAD && value.starts_with(MAGIC)
}

fn seed_context(game: &str, name: &str) -> Vec<u8> {
    format!("seed\0{game}\0{name}").into_bytes()
}

fn webhook_context(webhook: &str) -> Vec<u8> {
    format!("webhook\0{webhook}").into_bytes()
}

/// Writes a new file readable and writable by its owner only.
fn create_private(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    file.write_all(contents)?;
    file.sync_all()
}

fn warn_if_readable_by_others(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(meta) = std::fs::metadata(path) {
            if meta.permissions().mode() & 0o077 != 0 {
                tracing::warn!(
                    path = %path.display(),
                    "the secrets key can be read by other users than its owner: chmod 600 it"
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_seed_opens_only_for_its_game_and_name_under_its_key() {
        let key = SecretsKey::generate().unwrap();
        let seed = [7u8; 32];
        let sealed = key.seal_seeds("g-1", "seed", &seed).unwrap();
        assert!(!stored_in_clear(&sealed));
        assert!(!sealed.windows(32).any(|w| w == seed));
        assert_eq!(key.open_seeds("g-1", "seed", &sealed).unwrap(), seed);
        assert!(key.open_seeds("g-2", "seed", &sealed).is_err());
        assert!(key.open_seeds("g-1", "earlier_seeds", &sealed).is_err());
        let other = SecretsKey::generate().unwrap();
        assert!(other.open_seeds("g-1", "seed", &sealed).is_err());
        let mut altered = sealed.clone();
        let last = altered.len() - 1;
        altered[last] ^= 1;
        assert!(key.open_seeds("g-1", "seed", &altered).is_err());
    }

    #[test]
    fn seeds_in_clear_from_an_older_store_are_read_as_they_are() {
        let key = SecretsKey::generate().unwrap();
        for seeds in [vec![1u8; 32], vec![2u8; 96]] {
            assert!(stored_in_clear(&seeds));
            assert_eq!(key.open_seeds("g", "seed", &seeds).unwrap(), seeds);
            let sealed = key.seal_seeds("g", "seed", &seeds).unwrap();
            assert!(!stored_in_clear(&sealed), "{} bytes", sealed.len());
        }
    }

    #[test]
    fn a_webhook_secret_is_sealed_for_its_webhook() {
        let key = SecretsKey::generate().unwrap();
        let sealed = key.seal_text("wh-1", "whsec_abc").unwrap();
        assert!(!sealed.contains("whsec_abc"));
        assert!(!text_in_clear(&sealed));
        assert_eq!(key.open_text("wh-1", &sealed).unwrap(), "whsec_abc");
        assert!(key.open_text("wh-2", &sealed).is_err());
        assert_eq!(key.open_text("wh-1", "whsec_old").unwrap(), "whsec_old");
    }

    #[test]
    fn a_key_file_is_created_private_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys").join("secrets.key");
        let key = SecretsKey::load_or_create(&path).unwrap();
        let sealed = key.seal(b"c", b"hello").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let again = SecretsKey::load_or_create(&path).unwrap();
        assert_eq!(again.open(b"c", &sealed).unwrap(), b"hello");
        std::fs::write(&path, "not hex\n").unwrap();
        assert!(matches!(
            SecretsKey::load_or_create(&path),
            Err(KeyError::Malformed { .. })
        ));
    }

    #[test]
    fn a_missing_key_file_is_not_replaced_when_the_store_holds_sealed_secrets() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secrets.key");
        let store = storage::MemoryStore::new();
        let key = SecretsKey::load_or_create_for(&path, &store).unwrap();
        key.bind(&store).unwrap();
        std::fs::remove_file(&path).unwrap();
        let refused = SecretsKey::load_or_create_for(&path, &store);
        assert!(
            matches!(refused, Err(KeyError::Missing { .. })),
            "{refused:?}"
        );
        assert!(!path.exists(), "no new key file was written");
    }

    #[test]
    fn a_store_refuses_a_key_other_than_its_own() {
        let store = storage::MemoryStore::new();
        let key = SecretsKey::generate().unwrap();
        key.bind(&store).unwrap();
        key.bind(&store).unwrap();
        let other = SecretsKey::generate().unwrap();
        assert!(matches!(
            other.bind(&store),
            Err(KeyError::NotTheStores { .. })
        ));
    }
}
