//! Parsing `#[hook(<point>, order = N, name = "...", timeout_ms = N, on_error = "...",
//! crate = path)]`.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{Expr, Ident, Lit, LitStr, Path, Token, UnOp};

const EXPECTED: &str = "expected `order = <integer>`, `name = \"<name>\"`, \
     `timeout_ms = <milliseconds>`, `on_error = \"continue\" | \"deny\"` or `crate = <path>`";

pub struct HookArgs {
    /// The point: one identifier (a standard point) or a path (a declared point).
    pub point: Path,
    pub order: Option<i32>,
    pub name: Option<LitStr>,
    pub timeout_ms: Option<u32>,
    /// `true`: fail closed (`"deny"`).
    pub on_error_deny: Option<bool>,
    pub krate: Option<Path>,
}

impl Parse for HookArgs {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.is_empty() {
            return Err(syn::Error::new(
                Span::call_site(),
                "missing hook point: write `#[hook(pre_tool_use)]`, or the path of a declared \
                 point such as `#[hook(my_crate::points::my_point)]`",
            ));
        }
        let point = Path::parse_mod_style(input)?;
        if input.peek(Token![=]) {
            return Err(syn::Error::new(
                point.span(),
                "the hook point comes first: `#[hook(pre_tool_use, order = 10)]`",
            ));
        }
        let mut args = HookArgs {
            point,
            order: None,
            name: None,
            timeout_ms: None,
            on_error_deny: None,
            krate: None,
        };
        let mut seen: Vec<String> = Vec::new();
        while !input.is_empty() {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break; // trailing comma
            }
            let key = Ident::parse_any(input)?;
            let key_name = key.to_string();
            if !matches!(
                key_name.as_str(),
                "order" | "name" | "timeout_ms" | "on_error" | "crate"
            ) {
                return Err(syn::Error::new(
                    key.span(),
                    format!("unknown `#[hook]` argument `{key_name}`; {EXPECTED}"),
                ));
            }
            if seen.contains(&key_name) {
                return Err(syn::Error::new(
                    key.span(),
                    format!("duplicate `#[hook]` argument `{key_name}`"),
                ));
            }
            seen.push(key_name.clone());
            if !input.peek(Token![=]) {
                return Err(syn::Error::new(
                    key.span(),
                    format!("expected `=` and a value after `{key_name}`"),
                ));
            }
            input.parse::<Token![=]>()?;
            match key_name.as_str() {
                "order" => args.order = Some(parse_order(&input.parse::<Expr>()?)?),
                "name" => {
                    let value: Expr = input.parse()?;
                    match value {
                        Expr::Lit(lit) => match lit.lit {
                            Lit::Str(s) if !s.value().is_empty() => args.name = Some(s),
                            other => return Err(name_error(other.span())),
                        },
                        other => return Err(name_error(other.span())),
                    }
                }
                "timeout_ms" => args.timeout_ms = Some(parse_timeout(&input.parse::<Expr>()?)?),
                "on_error" => {
                    let value: Expr = input.parse()?;
                    args.on_error_deny = Some(parse_on_error(&value)?);
                }
                _ => args.krate = Some(Path::parse_mod_style(input)?),
            }
        }
        Ok(args)
    }
}

fn name_error(span: Span) -> syn::Error {
    syn::Error::new(
        span,
        "`name` must be a non-empty string literal: `name = \"my_hook\"`",
    )
}

fn parse_order(value: &Expr) -> syn::Result<i32> {
    let (negative, lit) = match value {
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => (true, &*u.expr),
        other => (false, other),
    };
    let int = match lit {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(i) => Some(i),
            _ => None,
        },
        _ => None,
    };
    let Some(int) = int else {
        return Err(syn::Error::new(
            value.span(),
            "`order` must be an integer literal, like `order = 10` or `order = -5`",
        ));
    };
    let magnitude: i64 = int
        .base10_parse()
        .map_err(|_| syn::Error::new(int.span(), "`order` must fit in an `i32`"))?;
    let order = if negative { -magnitude } else { magnitude };
    i32::try_from(order).map_err(|_| syn::Error::new(value.span(), "`order` must fit in an `i32`"))
}

fn parse_timeout(value: &Expr) -> syn::Result<u32> {
    const MSG: &str = "`timeout_ms` must be a positive integer literal of milliseconds, like \
                       `timeout_ms = 500`";
    let Expr::Lit(syn::ExprLit {
        lit: Lit::Int(int), ..
    }) = value
    else {
        return Err(syn::Error::new(value.span(), MSG));
    };
    match int.base10_parse::<u32>() {
        Ok(ms) if ms > 0 => Ok(ms),
        _ => Err(syn::Error::new(int.span(), MSG)),
    }
}

/// `true` for `"deny"`, `false` for `"continue"` (or `"ignore"`, the config files' old word for
/// it: one vocabulary in attributes and config files, docs/decisions.md).
fn parse_on_error(value: &Expr) -> syn::Result<bool> {
    const MSG: &str = "`on_error` must be `\"continue\"` (fail open) or `\"deny\"` (fail closed)";
    match value {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(s), ..
        }) => match s.value().as_str() {
            "deny" => Ok(true),
            "continue" | "ignore" => Ok(false),
            _ => Err(syn::Error::new(s.span(), MSG)),
        },
        other => Err(syn::Error::new(other.span(), MSG)),
    }
}
