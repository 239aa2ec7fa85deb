//! Images and documents described from their bytes, never from what a tool
//! declared: the format sniffed from magic bytes, then facts read from the
//! headers without decoding a pixel (PNG, JPEG, GIF, WebP sizes; JPEG's
//! progressive mode and EXIF orientation; GIF and animated WebP frames; a
//! PDF's page count when its page tree is in plain objects). Anything it cannot
//! read (empty, truncated, absurd sizes, an unknown format) is described as
//! opaque with the reason; nothing here panics on any input. A leaf: it
//! imports nothing of the crate.

mod bytes;
mod gif;
mod jpeg;
mod pdf;
mod png;
mod webp;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;

/// A side past this many pixels is absurd for any image a tool returns (PNG
/// allows 2^31 - 1, JPEG 65,535, WebP 16,384 or 2^24): such a header is
/// described as opaque rather than trusted.
pub const MAX_SIDE: u32 = 1 << 18;

/// The formats read from their bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Png,
    Jpeg,
    Gif,
    Webp,
    Pdf,
}

impl Format {
    /// Its short name, as the stub shows it: `png`, `jpeg`, `gif`, `webp`, `pdf`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Png => "png",
            Format::Jpeg => "jpeg",
            Format::Gif => "gif",
            Format::Webp => "webp",
            Format::Pdf => "pdf",
        }
    }

    /// Its MIME type.
    pub fn mime(self) -> &'static str {
        match self {
            Format::Png => "image/png",
            Format::Jpeg => "image/jpeg",
            Format::Gif => "image/gif",
            Format::Webp => "image/webp",
            Format::Pdf => "application/pdf",
        }
    }

    /// Whether it is an image (a PDF is a document).
    pub fn is_image(self) -> bool {
        self != Format::Pdf
    }

    /// The format a MIME type names (parameters, case and the common
    /// aliases `image/jpg`, `image/pjpeg`, `image/x-png` allowed), if one of ours.
    pub fn from_mime(mime: &str) -> Option<Format> {
        let essence = mime.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
        Some(match essence.as_str() {
            "image/png" | "image/x-png" | "image/apng" => Format::Png,
            "image/jpeg" | "image/jpg" | "image/pjpeg" => Format::Jpeg,
            "image/gif" => Format::Gif,
            "image/webp" => Format::Webp,
            "application/pdf" | "application/x-pdf" => Format::Pdf,
            _ => return None,
        })
    }
}

/// The format its magic bytes say, if one of ours.
pub fn sniff(b: &[u8]) -> Option<Format> {
    if b.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(Format::Png)
    } else if b.starts_with(&[0xff, 0xd8, 0xff]) {
        Some(Format::Jpeg)
    } else if b.starts_with(b"GIF87a") || b.starts_with(b"GIF89a") {
        Some(Format::Gif)
    } else if b.len() >= 12 && &b[..4] == b"RIFF" && &b[8..12] == b"WEBP" {
        Some(Format::Webp)
    } else if pdf::starts(b) {
        Some(Format::Pdf)
    } else {
        None
    }
}

/// What a format's header says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Header {
    /// Stored pixel size, before any EXIF rotation.
    pub width: u32,
    pub height: u32,
    /// Frames of a GIF or an animated WebP, when the whole file could be walked.
    pub frames: Option<u32>,
    /// A progressive (or hierarchical) JPEG.
    pub progressive: bool,
    /// EXIF orientation 2–8 (1, the default, is not noted).
    pub orientation: Option<u8>,
    /// A PDF's page count, when its page tree is in plain objects.
    pub pages: Option<u32>,
}

/// Why a block is described as opaque.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opaque {
    Empty,
    /// The bytes are none of our formats.
    Unknown,
    /// A known magic, but the header ends or breaks before its size.
    Truncated,
    /// A side of 0 or past [`MAX_SIDE`].
    AbsurdSize,
}

impl Opaque {
    pub fn reason(self) -> &'static str {
        match self {
            Opaque::Empty => "empty",
            Opaque::Unknown => "format not recognised",
            Opaque::Truncated => "truncated or malformed header",
            Opaque::AbsurdSize => "absurd pixel size",
        }
    }
}

/// Everything read from a block's bytes, with what its producer declared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facts {
    /// Its length in bytes.
    pub bytes: usize,
    /// The sniffed format (a known magic), even when its header is bad.
    pub format: Option<Format>,
    /// The header's facts, `Err` when the block is opaque.
    pub header: Result<Header, Opaque>,
    /// The declared MIME type, as given.
    pub declared: Option<String>,
    /// The declared type names a format the bytes are not.
    pub mismatch: bool,
}

/// Describes `b`: its format from the magic bytes, its header's facts, and
/// whether `declared` (a MIME type) disagrees with them.
pub fn describe(b: &[u8], declared: Option<&str>) -> Facts {
    let format = sniff(b);
    let header = match format {
        _ if b.is_empty() => Err(Opaque::Empty),
        None => Err(Opaque::Unknown),
        Some(Format::Pdf) => Ok(pdf::header(b)),
        Some(f) => read_header(f, b).and_then(checked),
    };
    let declared_format = declared.and_then(Format::from_mime);
    Facts {
        bytes: b.len(),
        format,
        header,
        declared: declared.map(str::to_string),
        mismatch: matches!((declared_format, format), (Some(d), Some(f)) if d != f)
            || (declared_format.is_some() && format.is_none() && !b.is_empty()),
    }
}

fn read_header(f: Format, b: &[u8]) -> Result<Header, Opaque> {
    match f {
        Format::Png => png::header(b),
        Format::Jpeg => jpeg::header(b),
        Format::Gif => gif::header(b),
        Format::Webp => webp::header(b),
        Format::Pdf => Some(pdf::header(b)),
    }
    .ok_or(Opaque::Truncated)
}

fn checked(h: Header) -> Result<Header, Opaque> {
    let ok = |s: u32| (1..=MAX_SIDE).contains(&s);
    if ok(h.width) && ok(h.height) {
        Ok(h)
    } else {
        Err(Opaque::AbsurdSize)
    }
}

impl Facts {
    /// The size as a viewer shows it: width and height swapped for EXIF
    /// orientations 5–8 (a quarter turn).
    pub fn shown_size(&self) -> Option<(u32, u32)> {
        let h = self.header.as_ref().ok()?;
        if h.width == 0 {
            return None;
        }
        Some(match h.orientation {
            Some(5..=8) => (h.height, h.width),
            _ => (h.width, h.height),
        })
    }

    /// One line for the stub: format, pixel size, frames, pages, bytes, and
    /// what disagrees. E.g. `png 1280×800, 245,311 bytes`,
    /// `opaque (truncated or malformed header; declared image/png), 12 bytes`.
    pub fn line(&self) -> String {
        let mut out = match (&self.header, self.format) {
            (Ok(h), Some(f)) => {
                let mut s = f.name().to_string();
                if h.width > 0 {
                    s.push_str(&format!(" {}×{}", h.width, h.height));
                }
                if h.progressive {
                    s.push_str(" progressive");
                }
                if let Some(o) = h.orientation {
                    let (w, hh) = self.shown_size().unwrap_or((h.width, h.height));
                    s.push_str(&format!(" (EXIF orientation {o}: shown {w}×{hh})"));
                }
                match h.frames {
                    Some(n) if n > 1 => s.push_str(&format!(", {n} frames")),
                    _ => {}
                }
                if let Some(p) = h.pages {
                    s.push_str(&format!(", {p} page{}", if p == 1 { "" } else { "s" }));
                }
                s
            }
            (Err(why), f) => match f {
                Some(f) => format!("opaque ({} magic, {})", f.name(), why.reason()),
                None => format!("opaque ({})", why.reason()),
            },
            (Ok(_), None) => "opaque".to_string(),
        };
        if self.mismatch {
            let d = self.declared.as_deref().unwrap_or("");
            out.push_str(&format!(" [declared {}, bytes disagree]", bytes::clean_mime(d)));
        }
        out.push_str(&format!(", {} bytes", group(self.bytes)));
        out
    }
}

/// `1234567` as `1,234,567`.
pub fn group(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
