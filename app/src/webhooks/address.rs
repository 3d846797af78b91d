//! Where a webhook may send: out to the internet, never into the operator's own network
//! because a player asked. A URL is checked when it is registered and again at every delivery
//! (a name's addresses can change): `https` (and `http` only where the operator allows it), a
//! host, and no address of the host loopback, private, link-local, unique-local, shared,
//! multicast, reserved, unspecified or the server machine's own. The delivery client resolves
//! names with [`CheckedResolver`], so it connects only to addresses that passed the check;
//! it follows no redirect and uses no proxy. The operator may name hosts that skip the address
//! check (an internal receiver of their own).

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::Url;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, UdpSocket};
use std::sync::Arc;
use url::Host;

/// What the operator allows beyond public `https` receivers.
#[derive(Clone, Debug, Default)]
pub struct AddressPolicy {
    /// Whether `http://` URLs are taken (else only `https://`).
    pub allow_http: bool,
    /// Hosts (names or addresses, as written in URLs) whose addresses are not checked.
    pub allowed_hosts: Vec<String>,
}

impl AddressPolicy {
    fn allows_host(&self, host: &str) -> bool {
        let host = host.trim_start_matches('[').trim_end_matches(']');
        self.allowed_hosts.iter().any(|allowed| {
            allowed
                .trim_start_matches('[')
                .trim_end_matches(']')
                .eq_ignore_ascii_case(host)
        })
    }

    /// The URL, parsed, if its form may be registered (scheme, host, nothing odd); the reason
    /// otherwise. Its addresses are checked by [`AddressPolicy::check_addresses`].
    pub fn parse(&self, text: &str) -> Result<Url, String> {
        let url = Url::parse(text).map_err(|e| format!("this one is not a URL: {e}"))?;
        match url.scheme() {
            "https" => {}
            "http" if self.allow_http => {}
            "http" => return Err("this server takes only https:// URLs".into()),
            other => return Err(format!("not {other}://")),
        }
        // `http:///x` parses as `http://x/`: the host must be written where a host goes.
        let after_scheme = text
            .split_once("://")
            .map(|(_, rest)| rest)
            .ok_or("this one is not an absolute URL")?;
        if after_scheme.starts_with(['/', '\\']) || url.host_str().is_none_or(str::is_empty) {
            return Err("this one names no host".into());
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err("a webhook URL carries no user name or password".into());
        }
        Ok(url)
    }

    /// Refuses a URL whose host is, or resolves to, an address inside a private network or
    /// this machine (unless the operator allowed the host); resolves names.
    pub async fn check_addresses(&self, url: &Url) -> Result<(), String> {
        let Some(host) = url.host() else {
            return Err("this one names no host".into());
        };
        if self.allows_host(&host.to_string()) {
            return Ok(());
        }
        match host {
            Host::Ipv4(ip) => refuse_address(&host.to_string(), IpAddr::V4(ip)),
            Host::Ipv6(ip) => refuse_address(&host.to_string(), IpAddr::V6(ip)),
            Host::Domain(name) => {
                let port = url.port_or_known_default().unwrap_or(443);
                resolve_checked(name, port).await.map(|_| ())
            }
        }
    }

    /// Checks before a delivery what the resolver does not see: a host written as an address.
    pub fn check_literal(&self, url: &Url) -> Result<(), String> {
        match url.host() {
            Some(Host::Ipv4(ip)) if !self.allows_host(&ip.to_string()) => {
                refuse_address(&ip.to_string(), IpAddr::V4(ip))
            }
            Some(Host::Ipv6(ip)) if !self.allows_host(&ip.to_string()) => {
                refuse_address(&ip.to_string(), IpAddr::V6(ip))
            }
            Some(_) => Ok(()),
            None => Err("the URL names no host".into()),
        }
    }
}

/// The name's addresses, if none is refused.
async fn resolve_checked(name: &str, port: u16) -> Result<Vec<SocketAddr>, String> {
    let addresses: Vec<SocketAddr> = tokio::net::lookup_host((name, port))
        .await
        .map_err(|e| format!("the host {name} does not resolve: {e}"))?
        .collect();
    if addresses.is_empty() {
        return Err(format!("the host {name} has no address"));
    }
    for address in &addresses {
        refuse_address(name, address.ip())?;
    }
    Ok(addresses)
}

fn refuse_address(host: &str, ip: IpAddr) -> Result<(), String> {
    match not_public(ip) {
        None => Ok(()),
        Some(why) => Err(format!(
            "{host} is {ip}, {why}: webhooks are sent only to public addresses"
        )),
    }
}

/// Why `ip` is not a public address of another machine, if it is not.
pub fn not_public(ip: IpAddr) -> Option<&'static str> {
    let why = match ip {
        IpAddr::V4(ip) => not_public_v4(ip),
        IpAddr::V6(ip) => match ip.to_ipv4_mapped() {
            Some(v4) => not_public_v4(v4),
            None => not_public_v6(ip),
        },
    };
    why.or_else(|| this_machine(ip).then_some("an address of this server's machine"))
}

fn not_public_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        _ if ip.is_unspecified() || a == 0 => "an unspecified address",
        _ if ip.is_loopback() => "a loopback address",
        _ if ip.is_private() => "a private address",
        _ if ip.is_link_local() => "a link-local address",
        (100, 64..=127, _) => "a shared (carrier-grade NAT) address",
        (192, 0, 0) => "a protocol assignment address",
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => "a documentation address",
        (198, 18..=19, _) => "a benchmarking address",
        _ if ip.is_multicast() => "a multicast address",
        _ if ip.is_broadcast() || a >= 240 => "a reserved address",
        _ => return None,
    })
}

fn not_public_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let segments = ip.segments();
    Some(match segments[0] {
        _ if ip.is_unspecified() => "an unspecified address",
        _ if ip.is_loopback() => "a loopback address",
        s if s & 0xfe00 == 0xfc00 => "a unique-local address",
        s if s & 0xffc0 == 0xfe80 => "a link-local address",
        s if s & 0xffc0 == 0xfec0 => "a site-local address",
        s if s & 0xff00 == 0xff00 => "a multicast address",
        0x2001 if segments[1] == 0x0db8 => "a documentation address",
        // Teredo (`2001::/32`): a tunnel whose far end is chosen by relays and whose client
        // address is hidden (inverted) inside; nothing a receiver of webhooks needs.
        0x2001 if segments[1] == 0 => "a Teredo tunnel address",
        // The rest of the IETF's protocol assignments (`2001::/23`: benchmarking, ORCHID,
        // anycast services): no host there receives webhooks.
        0x2001 if segments[1] < 0x0200 => "an IETF protocol assignment address",
        // Documentation (`3fff::/20`) and discard-only (`100::/64`) ranges.
        s if s & 0xfff0 == 0x3ff0 => "a documentation address",
        0x0100 if segments[1..4] == [0; 3] => "a discard-only address",
        // NAT64 (`64:ff9b::/96`): the IPv4 address inside decides.
        0x0064 if segments[1] == 0xff9b && segments[2..6] == [0; 4] => {
            return inside_v4(v4_of(segments[6], segments[7]));
        }
        // Local-use NAT64 (`64:ff9b:1::/48`): translated inside the operator's own networks,
        // whatever IPv4 address it carries.
        0x0064 if segments[1] == 0xff9b && segments[2] == 0x0001 => {
            "a local-use NAT64 address (translated inside a private network)"
        }
        // 6to4 (`2002::/16`): the IPv4 address in the next 32 bits decides.
        0x2002 => return inside_v4(v4_of(segments[1], segments[2])),
        // IPv4-translated (`::ffff:0:a.b.c.d`, the SIIT form): the IPv4 address decides.
        0 if segments[1..4] == [0; 3] && segments[4] == 0xffff && segments[5] == 0 => {
            return inside_v4(v4_of(segments[6], segments[7]));
        }
        // IPv4-compatible (deprecated) addresses: `::a.b.c.d`.
        0 if segments[1..6] == [0; 5] => "a deprecated IPv4-compatible address",
        _ => return None,
    })
}

/// The IPv4 address written in two 16-bit groups of an IPv6 address.
fn v4_of(hi: u16, lo: u16) -> Ipv4Addr {
    Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo))
}

/// Why an IPv4 address carried inside an IPv6 one is not public, if it is not.
fn inside_v4(v4: Ipv4Addr) -> Option<&'static str> {
    not_public_v4(v4)
        .or_else(|| this_machine(IpAddr::V4(v4)).then_some("an address of this server's machine"))
}

/// Whether `ip` belongs to one of this machine's interfaces: only then can a socket be bound
/// to it. This catches the server's own public address, which no range above names.
fn this_machine(ip: IpAddr) -> bool {
    UdpSocket::bind(SocketAddr::new(ip, 0)).is_ok()
}

/// The delivery client's resolver: a name resolves only to addresses that pass the check,
/// so the client connects to nothing else, whatever the name's addresses were at registration.
pub struct CheckedResolver {
    pub policy: Arc<AddressPolicy>,
}

impl Resolve for CheckedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let name = name.as_str().to_string();
        let policy = self.policy.clone();
        Box::pin(async move {
            let addresses = if policy.allows_host(&name) {
                tokio::net::lookup_host((name.as_str(), 0))
                    .await?
                    .collect::<Vec<_>>()
            } else {
                resolve_checked(&name, 0).await?
            };
            Ok(Box::new(addresses.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str) -> bool {
        let ip: IpAddr = text.parse().expect("an address");
        not_public(ip).is_some()
    }

    #[test]
    fn inside_addresses_are_refused() {
        for inside in [
            "127.0.0.1",
            "127.1.2.3",
            "0.0.0.0",
            "0.1.2.3",
            "10.0.0.1",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "224.0.0.1",
            "255.255.255.255",
            "240.0.0.1",
            "192.0.2.1",
            "198.18.0.1",
            "::",
            "::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:10.1.2.3",
            "::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "2001:db8::1",
            // Teredo, whatever it carries: a relay at 65.54.227.120 for a client behind
            // 127.0.0.1 (inverted: 80ff:fffe), and one for a public client.
            "2001:0:4136:e378:8000:63bf:80ff:fffe",
            "2001:0:4136:e378:8000:63bf:f7f7:f7f7",
            "2001:2::1",
            "2001:10::1",
            "3fff::1",
            "100::1",
            // Local-use NAT64, whatever it carries.
            "64:ff9b:1::808:808",
            "64:ff9b:1:ffff::a00:1",
            // 6to4 of inside IPv4 addresses: 127.0.0.1, 10.0.0.1, 169.254.169.254.
            "2002:7f00:1::1",
            "2002:a00:1::",
            "2002:a9fe:a9fe::1",
            // IPv4-translated forms of 127.0.0.1 and 192.168.0.1.
            "::ffff:0:7f00:1",
            "::ffff:0:c0a8:1",
        ] {
            assert!(refused(inside), "{inside} must be refused");
        }
    }

    #[test]
    fn public_addresses_pass() {
        for outside in [
            "93.184.215.14",
            "8.8.8.8",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700::1111",
            "64:ff9b::808:808",
            "2002:808:808::1",
            "::ffff:0:808:808",
        ] {
            assert!(!refused(outside), "{outside} is public");
        }
    }

    #[test]
    fn the_url_forms_that_hide_a_host_are_refused() {
        let policy = AddressPolicy {
            allow_http: true,
            allowed_hosts: vec![],
        };
        assert!(policy.parse("http:///x").is_err());
        assert!(policy.parse("https:\\\\\\x").is_err());
        assert!(policy.parse("http://user:pw@example.com/").is_err());
        assert!(policy.parse("ftp://example.com/").is_err());
        let strict = AddressPolicy::default();
        assert!(strict.parse("http://example.com/").is_err());
        assert!(strict.parse("https://example.com/").is_ok());
        // Numbers written as one integer or in hexadecimal are addresses all the same.
        let url = policy.parse("http://0x7f000001/").expect("a URL");
        assert!(policy.check_literal(&url).is_err());
        let url = policy.parse("http://2130706433/").expect("a URL");
        assert!(policy.check_literal(&url).is_err());
    }

    #[test]
    fn an_allowed_host_skips_the_address_check() {
        let policy = AddressPolicy {
            allow_http: true,
            allowed_hosts: vec!["127.0.0.1".into(), "[::1]".into()],
        };
        let url = policy.parse("http://127.0.0.1:9000/hook").expect("a URL");
        assert!(policy.check_literal(&url).is_ok());
        let url = policy.parse("http://[::1]:9000/hook").expect("a URL");
        assert!(policy.check_literal(&url).is_ok());
        let url = policy.parse("http://127.0.0.2:9000/hook").expect("a URL");
        assert!(policy.check_literal(&url).is_err());
    }

    #[tokio::test]
    async fn a_name_that_resolves_inside_is_refused_at_registration() {
        let policy = AddressPolicy {
            allow_http: true,
            allowed_hosts: vec![],
        };
        let url = policy.parse("http://localhost:22/").expect("a URL");
        let refused = policy.check_addresses(&url).await;
        assert!(
            refused.as_ref().is_err_and(|why| why.contains("loopback")),
            "{refused:?}"
        );
    }

    #[tokio::test]
    async fn the_resolver_gives_no_inside_address() {
        let resolver = CheckedResolver {
            policy: Arc::new(AddressPolicy::default()),
        };
        let name: Name = "localhost".parse().expect("a name");
        assert!(resolver.resolve(name).await.is_err());
        let allowing = CheckedResolver {
            policy: Arc::new(AddressPolicy {
                allow_http: true,
                allowed_hosts: vec!["localhost".into()],
            }),
        };
        let name: Name = "localhost".parse().expect("a name");
        let addresses: Vec<SocketAddr> = allowing.resolve(name).await.expect("resolves").collect();
        assert!(addresses.iter().all(|a| a.ip().is_loopback()));
    }
}
