//! napi bindings for tool palettes: a thin layer over `core::palette`.
//! The public API (`resolvePalette`, `applyPalette`, ...) is the JS in
//! `lib/palette.js`, which keeps the caller's tool objects on the JS side and
//! sends only names, once per tool list.

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::error::{guard, type_error, Code};
use symfonic_core::palette::{Palette, ToolNames};

/// Every role's tool allowlist, compiled once (internal: used by
/// `StaticPaletteResolver`). Entries are exact tool names, or prefixes when
/// they end in `*`; names compare UTF-16 unit for unit, as JS `===` does.
#[napi]
pub struct PaletteMatcher {
    inner: Palette,
}

#[napi]
impl PaletteMatcher {
    /// Compiles one allowlist per role; roles are then addressed by their
    /// index in `allowlists`. Throws a `TypeError` on an empty entry or a
    /// `*` that is not the entry's last character.
    #[napi(constructor, catch_unwind)]
    pub fn new(env: Env, allowlists: Vec<Vec<Utf16String>>) -> Result<Self, Code> {
        guard(|| {
            // UTF-16, not `String`: a lone surrogate must not become U+FFFD and alias.
            let lists: Vec<Vec<&[u16]>> = allowlists
                .iter()
                .map(|l| l.iter().map(|e| &**e).collect())
                .collect();
            Palette::compile(&lists)
                .map(|inner| PaletteMatcher { inner })
                .map_err(|e| type_error(&env, &e.to_string()))
        })
    }

    /// Number of roles compiled.
    #[napi(getter, catch_unwind)]
    pub fn roles(&self) -> Result<u32, Code> {
        guard(|| Ok(self.inner.roles() as u32))
    }

    /// Writes the indices of the tools in `names` that role `role` allows
    /// into `out`, in input order, and returns how many were written. `out`
    /// should hold `names.length` slots; nothing is written past its end.
    #[napi(catch_unwind)]
    pub fn select_into(
        &self,
        role: u32,
        names: &ToolNameList,
        mut out: Uint32ArraySlice,
    ) -> Result<u32, Code> {
        guard(|| {
            // SAFETY: a synchronous call on the JS thread; no JS runs while we
            // write, and the view's bounds come from the typed array itself.
            let out = unsafe { out.as_mut() };
            Ok(self.inner.select_into(role as usize, &names.inner, out) as u32)
        })
    }
}

/// The names of one tool list, sent across once and reused for as long as
/// that list is unchanged (internal: used by `StaticPaletteResolver`).
#[napi]
pub struct ToolNameList {
    inner: ToolNames,
}

#[napi]
impl ToolNameList {
    /// `wire`: one segment per tool, separated by `\0`; `+name` for a tool
    /// named `name`, `-` for a tool without a string name (it never matches).
    /// The empty string is the empty list. Read as UTF-16 units (a plain copy
    /// in V8), so names with lone surrogates arrive exactly.
    #[napi(constructor, catch_unwind)]
    pub fn new(wire: Utf16String) -> Result<Self, Code> {
        guard(|| {
            Ok(ToolNameList {
                inner: ToolNames::parse(&wire),
            })
        })
    }

    /// Number of tools in the list.
    #[napi(getter, catch_unwind)]
    pub fn length(&self) -> Result<u32, Code> {
        guard(|| Ok(self.inner.len() as u32))
    }
}
