//! A Redis store's name: `redis://[user:password@]host[:port][/db][?prefix=…]`
//! (`rediss://` for TLS), or several, the seed nodes of one Redis Cluster;
//! and the same URL with its password hidden, for messages.

use redis::Client;

use super::DEFAULT_PREFIX;

/// `redis://…` / `rediss://…` as given to `new Ledger({ store })`, with this
/// package's own query parameter (`prefix`) taken out.
/// Several URLs are the seed nodes of one Redis Cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedisSpec {
    /// The URLs handed to the `redis` crate (without `prefix=`): one server
    /// (or one node of a cluster), or a cluster's seed nodes.
    pub urls: Vec<String>,
    /// Prepended to every key (default [`DEFAULT_PREFIX`]).
    pub prefix: String,
}

fn percent_decode(s: &str) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = b
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| format!("bad percent-encoding in '{s}'"))?;
                out.push(hex);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| format!("'{s}' is not UTF-8 once decoded"))
}

impl RedisSpec {
    /// Parses `redis://[user:password@]host[:port][/db][?prefix=…]` (and
    /// `rediss://` for TLS). The URL is checked by the `redis` crate here;
    /// nothing connects.
    pub fn parse(s: &str) -> Result<RedisSpec, String> {
        if !(s.starts_with("redis://") || s.starts_with("rediss://")) {
            return Err(format!("a Redis store is 'redis://host:port/db', got '{s}'"));
        }
        let (base, query) = match s.split_once('?') {
            Some((b, q)) => (b, Some(q)),
            None => (s, None),
        };
        let (base, fragment) = match base.split_once('#') {
            Some((b, f)) => (b, Some(f)),
            None => (base, None),
        };
        let mut prefix = DEFAULT_PREFIX.to_string();
        let mut kept = Vec::new();
        for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
            match pair.split_once('=') {
                Some(("prefix", v)) => prefix = percent_decode(v)?,
                _ => kept.push(pair),
            }
        }
        if prefix.contains(['{', '}']) || prefix.chars().any(char::is_control) {
            return Err(format!(
                "store prefix '{prefix}' may not contain '{{', '}}' or control characters (they would break the keys' hash tags)"
            ));
        }
        let mut url = base.to_string();
        if !kept.is_empty() {
            url.push('?');
            url.push_str(&kept.join("&"));
        }
        if let Some(f) = fragment {
            url.push('#');
            url.push_str(f);
        }
        Client::open(url.as_str()).map_err(|e| format!("store '{}': {e}", redact(s)))?;
        Ok(RedisSpec {
            urls: vec![url],
            prefix,
        })
    }

    /// Parses the seed nodes of one Redis Cluster, each as [`parse`](Self::parse)
    /// does; a `prefix` given in several must be the same.
    pub fn parse_seeds(urls: &[String]) -> Result<RedisSpec, String> {
        let mut out: Option<RedisSpec> = None;
        for u in urls {
            let one = Self::parse(u)?;
            let given = u.contains("prefix=");
            out = Some(match out {
                None => one,
                Some(mut acc) => {
                    if given && acc.prefix != one.prefix && acc.prefix != DEFAULT_PREFIX {
                        return Err(format!(
                            "the seed URLs give different prefixes ('{}' and '{}')",
                            acc.prefix, one.prefix
                        ));
                    }
                    if given {
                        acc.prefix = one.prefix;
                    }
                    acc.urls.extend(one.urls);
                    acc
                }
            });
        }
        out.ok_or_else(|| "a list of Redis seed URLs may not be empty".to_string())
    }

    /// The first URL with its password hidden, and how many seeds follow, for messages.
    pub fn shown(&self) -> String {
        let first = self.urls.first().map_or(String::new(), |u| redact(u));
        match self.urls.len() {
            0 | 1 => first,
            n => format!("{first} (+{} seeds)", n - 1),
        }
    }
}

/// The URL with its password (if any) replaced by `***`, for messages.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let auth_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..auth_end].rfind('@') {
        Some(at) => {
            let userinfo = &rest[..at];
            let user = userinfo.split_once(':').map_or(userinfo, |(u, _)| u);
            let hidden = if userinfo.contains(':') {
                format!("{user}:***")
            } else {
                "***".into()
            };
            format!("{scheme}://{hidden}{}", &rest[at..])
        }
        None => url.to_string(),
    }
}
