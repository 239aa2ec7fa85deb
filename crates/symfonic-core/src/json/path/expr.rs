//! Filter expressions (`?@.stock==0 && !@.hidden`), with RFC 9535's type
//! rules checked as they are parsed: compared queries are singular, a
//! literal is never a test, and each function gets arguments of its types.

use super::{singular, Invalid, Parser, Segment, MAX_DEPTH};

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Expr {
    Or(Vec<Expr>),
    And(Vec<Expr>),
    Not(Box<Expr>),
    /// A query as a test: true when it selects at least one node.
    Exists(FilterQuery),
    Cmp(Box<(Comparable, CmpOp, Comparable)>),
    /// `match(…)` or `search(…)` as a test.
    Logical(FnCall),
}

/// `@…` (relative to the filtered node) or `$…`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FilterQuery {
    pub absolute: bool,
    pub segs: Vec<Segment>,
}

impl FilterQuery {
    pub(crate) fn is_singular(&self) -> bool {
        singular(&self.segs)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Comparable {
    Lit(Lit),
    /// A singular query.
    Query(FilterQuery),
    /// A function returning a value (`length`, `count`, `value`).
    Func(FnCall),
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Lit {
    Num(f64),
    Str(String),
    Bool(bool),
    Null,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Func {
    Length,
    Count,
    Match,
    Search,
    Value,
}

impl Func {
    fn named(name: &str) -> Option<Func> {
        Some(match name {
            "length" => Func::Length,
            "count" => Func::Count,
            "match" => Func::Match,
            "search" => Func::Search,
            "value" => Func::Value,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Func::Length => "length",
            Func::Count => "count",
            Func::Match => "match",
            Func::Search => "search",
            Func::Value => "value",
        }
    }

    /// Whether it returns a logical value (a test) rather than a value.
    fn logical(self) -> bool {
        matches!(self, Func::Match | Func::Search)
    }

    /// Its parameters: `true` for a nodelist (any query), `false` for a value.
    fn params(self) -> &'static [bool] {
        match self {
            Func::Length => &[false],
            Func::Count | Func::Value => &[true],
            Func::Match | Func::Search => &[false, false],
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FnCall {
    pub func: Func,
    /// Value arguments are `Comparable`s; a nodelist argument is a `Query`.
    pub args: Vec<Comparable>,
}

/// What starts a comparison or a test, before its type is known.
enum Operand {
    Lit(Lit),
    Query(FilterQuery),
    Func(FnCall),
}

impl Parser<'_> {
    /// logical-or-expr.
    pub(super) fn logical(&mut self) -> Result<Expr, Invalid> {
        if self.depth >= MAX_DEPTH {
            return Err(self.err(
                self.i,
                format!("nested too deeply (at most {MAX_DEPTH} filters, parentheses and calls)"),
            ));
        }
        self.depth += 1;
        let e = self.or();
        self.depth -= 1;
        e
    }

    fn or(&mut self) -> Result<Expr, Invalid> {
        self.chain("||", Self::and, Expr::Or)
    }

    fn and(&mut self) -> Result<Expr, Invalid> {
        self.chain("&&", Self::basic, Expr::And)
    }

    /// `next *(S op S next)`, one operand as itself, more as `wrap(all)`.
    fn chain(
        &mut self,
        op: &str,
        next: fn(&mut Self) -> Result<Expr, Invalid>,
        wrap: fn(Vec<Expr>) -> Expr,
    ) -> Result<Expr, Invalid> {
        let mut all = vec![next(self)?];
        loop {
            let save = self.i;
            self.blanks();
            if !self.starts_with(op) {
                self.i = save;
                break;
            }
            self.i += op.len();
            self.blanks();
            all.push(next(self)?);
        }
        Ok(if all.len() == 1 {
            all.pop().expect("one")
        } else {
            wrap(all)
        })
    }

    /// paren-expr, comparison-expr or test-expr.
    fn basic(&mut self) -> Result<Expr, Invalid> {
        if self.peek() == Some(b'!') {
            self.i += 1;
            self.blanks();
            if self.peek() == Some(b'(') {
                return Ok(Expr::Not(Box::new(self.paren()?)));
            }
            let at = self.i;
            let op = self.operand()?;
            return Ok(Expr::Not(Box::new(self.test(op, at)?)));
        }
        if self.peek() == Some(b'(') {
            return self.paren();
        }
        let at = self.i;
        let left = self.operand()?;
        let save = self.i;
        self.blanks();
        let Some(op) = self.cmp_op() else {
            self.i = save;
            return self.test(left, at);
        };
        let left = self.comparable(left, at, op)?;
        self.blanks();
        let at = self.i;
        let right = self.operand()?;
        let right = self.comparable(right, at, op)?;
        Ok(Expr::Cmp(Box::new((left, op, right))))
    }

    fn paren(&mut self) -> Result<Expr, Invalid> {
        let open = self.i;
        self.i += 1;
        self.blanks();
        let e = self.logical()?;
        self.blanks();
        match self.peek() {
            Some(b')') => {
                self.i += 1;
                Ok(e)
            }
            None => Err(self.err(open, "unclosed '('")),
            _ => Err(self.unexpected("')', '&&' or '||'")),
        }
    }

    fn cmp_op(&mut self) -> Option<CmpOp> {
        let (op, len) = match (self.peek()?, self.at(self.i + 1)) {
            (b'=', Some(b'=')) => (CmpOp::Eq, 2),
            (b'!', Some(b'=')) => (CmpOp::Ne, 2),
            (b'<', Some(b'=')) => (CmpOp::Le, 2),
            (b'>', Some(b'=')) => (CmpOp::Ge, 2),
            (b'<', _) => (CmpOp::Lt, 1),
            (b'>', _) => (CmpOp::Gt, 1),
            _ => return None,
        };
        self.i += len;
        Some(op)
    }

    /// An operand used as a test: a query, or `match`/`search`.
    fn test(&self, op: Operand, at: usize) -> Result<Expr, Invalid> {
        match op {
            Operand::Query(q) => Ok(Expr::Exists(q)),
            Operand::Func(f) if f.func.logical() => Ok(Expr::Logical(f)),
            Operand::Func(f) => Err(self.err(
                at,
                format!(
                    "{}() returns a value: compare it (e.g. {}(…) > 0)",
                    f.func.name(),
                    f.func.name()
                ),
            )),
            Operand::Lit(_) => Err(self.err(at, "a literal must be compared (e.g. @.a == true)")),
        }
    }

    /// An operand on one side of a comparison: a literal, a singular query,
    /// or a function returning a value.
    fn comparable(&self, op: Operand, at: usize, _cmp: CmpOp) -> Result<Comparable, Invalid> {
        match op {
            Operand::Lit(l) => Ok(Comparable::Lit(l)),
            Operand::Query(q) if q.is_singular() => Ok(Comparable::Query(q)),
            Operand::Query(_) => Err(self.err(
                at,
                "a compared query must be singular (names and indices only; use count() or value() for others)",
            )),
            Operand::Func(f) if f.func.logical() => Err(self.err(
                at,
                format!("{}() is a test and cannot be compared", f.func.name()),
            )),
            Operand::Func(f) => Ok(Comparable::Func(f)),
        }
    }

    /// A literal, a query, or a function call.
    fn operand(&mut self) -> Result<Operand, Invalid> {
        match self.peek() {
            Some(c @ (b'@' | b'$')) => {
                self.i += 1;
                let mut segs = Vec::new();
                self.segments(&mut segs, true)?;
                Ok(Operand::Query(FilterQuery {
                    absolute: c == b'$',
                    segs,
                }))
            }
            Some(q @ (b'\'' | b'"')) => Ok(Operand::Lit(Lit::Str(self.string(q)?))),
            Some(b'-' | b'0'..=b'9') => Ok(Operand::Lit(Lit::Num(self.number()?))),
            Some(b'a'..=b'z') => {
                let from = self.i;
                while self
                    .peek()
                    .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
                {
                    self.i += 1;
                }
                let name = &self.s[from..self.i];
                if self.peek() == Some(b'(') {
                    return self.call(name, from).map(Operand::Func);
                }
                match name {
                    "true" => Ok(Operand::Lit(Lit::Bool(true))),
                    "false" => Ok(Operand::Lit(Lit::Bool(false))),
                    "null" => Ok(Operand::Lit(Lit::Null)),
                    _ if Func::named(name).is_some() => {
                        Err(self.err(self.i, format!("expected '(' right after {name}")))
                    }
                    _ => Err(self.err(
                        from,
                        format!("unknown name '{name}', expected a literal, '@', '$' or a function"),
                    )),
                }
            }
            _ => {
                Err(self
                    .unexpected("a literal, '@', '$' or a function (length, count, match, search, value)"))
            }
        }
    }

    /// `name(args)`, the name read and `(` next.
    fn call(&mut self, name: &str, at: usize) -> Result<FnCall, Invalid> {
        let func = Func::named(name).ok_or_else(|| {
            self.err(
                at,
                format!("unknown function '{name}' (functions: length, count, match, search, value)"),
            )
        })?;
        let open = self.i;
        self.i += 1;
        self.blanks();
        let params = func.params();
        let mut args = Vec::new();
        if self.peek() != Some(b')') {
            loop {
                let at = self.i;
                let op = self.operand()?;
                let save = self.i;
                self.blanks();
                if self.starts_with("&&") || self.starts_with("||") || self.cmp_op().is_some() {
                    return Err(self.err(at, format!("{name}()'s arguments cannot be logical expressions")));
                }
                self.i = save;
                let Some(&nodes) = params.get(args.len()) else {
                    return Err(self.err(at, format!("{name}() takes {} argument(s)", params.len())));
                };
                args.push(self.argument(func, nodes, op, at)?);
                self.blanks();
                match self.peek() {
                    Some(b',') => {
                        self.i += 1;
                        self.blanks();
                    }
                    Some(b')') => break,
                    None => return Err(self.err(open, "unclosed '('")),
                    _ => return Err(self.unexpected("',' or ')'")),
                }
            }
        }
        self.i += 1;
        if args.len() != params.len() {
            return Err(self.err(at, format!("{name}() takes {} argument(s)", params.len())));
        }
        Ok(FnCall { func, args })
    }

    fn argument(&self, func: Func, nodes: bool, op: Operand, at: usize) -> Result<Comparable, Invalid> {
        let name = func.name();
        match (nodes, op) {
            (true, Operand::Query(q)) => Ok(Comparable::Query(q)),
            (true, _) => Err(self.err(at, format!("{name}()'s argument must be a query (@… or $…)"))),
            (false, Operand::Query(q)) if !q.is_singular() => Err(self.err(
                at,
                format!("{name}()'s argument must be a singular query (names and indices only)"),
            )),
            (false, op) => self.comparable(op, at, CmpOp::Eq).map_err(|e| Invalid {
                msg: format!("{name}()'s argument: {}", e.msg),
                ..e
            }),
        }
    }

    /// RFC 9535 `number`: (`int` / `-0`) [frac] [exp].
    fn number(&mut self) -> Result<f64, Invalid> {
        let (from, digits) = self.sign_and_digits();
        if self.i == digits {
            return Err(self.unexpected("a digit"));
        }
        if self.b[digits] == b'0' && self.i - digits > 1 {
            return Err(self.err(from, "a number has no leading zeros"));
        }
        let more_digits = |p: &mut Self| {
            let at = p.i;
            while p.peek().is_some_and(|c| c.is_ascii_digit()) {
                p.i += 1;
            }
            if p.i == at {
                Err(p.unexpected("a digit"))
            } else {
                Ok(())
            }
        };
        if self.peek() == Some(b'.') {
            self.i += 1;
            more_digits(self)?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            more_digits(self)?;
        }
        self.s[from..self.i]
            .parse()
            .map_err(|_| self.err(from, "not a number"))
    }
}
