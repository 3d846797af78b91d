//! systemd's service notifications (`sd_notify`): `READY=1` once the listeners serve,
//! `WATCHDOG=1` every half of the watchdog's interval while `/health` would answer 200, and
//! `STOPPING=1` on a stop. A node whose store takes no write until it restarts (a full or
//! failing disk under sled) stops pinging, so that systemd (`WatchdogSec=` in the unit)
//! restarts it. Each notice is one datagram to the unix socket `NOTIFY_SOCKET` names (an
//! abstract one when the name begins with `@`), as systemd's protocol describes; nothing is
//! sent when the process was not started by systemd.

use app::metrics::Metrics;
use std::os::unix::net::UnixDatagram;
use std::sync::Arc;
use std::time::Duration;

/// The socket systemd listens on for this service's notices.
pub struct Notifier {
    socket: UnixDatagram,
    target: std::os::unix::net::SocketAddr,
}

impl Notifier {
    /// The notifier of `NOTIFY_SOCKET`, if set and usable.
    pub fn from_env() -> Option<Notifier> {
        let name = std::env::var_os("NOTIFY_SOCKET")?;
        let name = name.to_str()?;
        let target = match name.strip_prefix('@') {
            Some(abstract_name) => {
                use std::os::linux::net::SocketAddrExt;
                std::os::unix::net::SocketAddr::from_abstract_name(abstract_name.as_bytes())
            }
            None => std::os::unix::net::SocketAddr::from_pathname(name),
        };
        let made = target.and_then(|target| Ok((UnixDatagram::unbound()?, target)));
        match made {
            Ok((socket, target)) => Some(Notifier { socket, target }),
            Err(error) => {
                tracing::warn!(%error, socket = name, "NOTIFY_SOCKET is set but cannot be used: systemd is told nothing");
                None
            }
        }
    }

    /// Sends one notice (`READY=1`, `WATCHDOG=1`, ...).
    pub fn notify(&self, state: &str) {
        if let Err(error) = self.socket.send_to_addr(state.as_bytes(), &self.target) {
            tracing::warn!(%error, state, "cannot notify systemd");
        }
    }
}

/// The interval systemd expects a `WATCHDOG=1` within (`WATCHDOG_USEC`), when it is meant
/// for this process (`WATCHDOG_PID`, when set, is its id).
pub fn watchdog_interval() -> Option<Duration> {
    if let Some(pid) = std::env::var_os("WATCHDOG_PID") {
        if pid.to_str()?.parse::<u32>().ok()? != std::process::id() {
            return None;
        }
    }
    let usec: u64 = std::env::var("WATCHDOG_USEC").ok()?.parse().ok()?;
    (usec > 0).then(|| Duration::from_micros(usec))
}

/// Tells systemd the node serves, and pings its watchdog while the node is healthy.
pub fn start(metrics: Arc<Metrics>) -> Option<Arc<Notifier>> {
    let notifier = Arc::new(Notifier::from_env()?);
    notifier.notify("READY=1");
    if let Some(interval) = watchdog_interval() {
        let pinging = notifier.clone();
        let spawned = std::thread::Builder::new()
            .name("watchdog".into())
            .spawn(move || loop {
                match metrics.store_broken() {
                    None => pinging.notify("WATCHDOG=1"),
                    Some(why) => {
                        tracing::error!(%why, "the store takes no write until this node restarts: systemd's watchdog is no longer told the node is well");
                        return;
                    }
                }
                std::thread::sleep(interval / 2);
            });
        if let Err(error) = spawned {
            tracing::error!(%error, "cannot start the watchdog's thread: systemd will restart this node");
        }
    }
    Some(notifier)
}
