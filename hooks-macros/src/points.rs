//! Expansion of `hook_points! { <vis> <kind> <name>: <Context>; ... }`.

use proc_macro2::TokenStream as TokenStream2;
use quote::{format_ident, quote};
use syn::parse::{Parse, ParseStream};
use syn::{Attribute, Ident, Path, Token, Type, Visibility};

const KINDS: [&str; 4] = ["guard", "transform", "observe", "recover"];

pub struct PointDecls {
    krate: Path,
    decls: Vec<PointDecl>,
}

struct PointDecl {
    attrs: Vec<Attribute>,
    vis: Visibility,
    kind: Ident,
    name: Ident,
    ctx: Type,
}

impl Parse for PointDecls {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        // Optional `#![crate = path]` for a renamed hookrail_core.
        let mut krate: Path = syn::parse_quote!(::hookrail_core);
        for attr in input.call(Attribute::parse_inner)? {
            let nv = attr.meta.require_name_value()?;
            if !nv.path.is_ident("crate") {
                return Err(syn::Error::new_spanned(
                    &nv.path,
                    "the only inner attribute is `#![crate = path::to::hookrail_core]`",
                ));
            }
            krate = syn::parse2(quote::ToTokens::to_token_stream(&nv.value))?;
        }
        let mut decls = Vec::new();
        while !input.is_empty() {
            let attrs = input.call(Attribute::parse_outer)?;
            let vis: Visibility = input.parse()?;
            let kind: Ident = input.parse()?;
            if !KINDS.contains(&kind.to_string().as_str()) {
                return Err(syn::Error::new(
                    kind.span(),
                    format!(
                        "unknown hook kind `{kind}`; expected `guard`, `transform`, `observe` or \
                         `recover`, as in `pub guard my_point: MyContext;`"
                    ),
                ));
            }
            let name: Ident = input.parse()?;
            input.parse::<Token![:]>()?;
            let ctx: Type = input.parse()?;
            input.parse::<Token![;]>()?;
            decls.push(PointDecl {
                attrs,
                vis,
                kind,
                name,
                ctx,
            });
        }
        Ok(PointDecls { krate, decls })
    }
}

pub fn expand(decls: PointDecls) -> TokenStream2 {
    let krate = &decls.krate;
    // linkme names the link section after the slice's identifier, and identifiers must be unique
    // across the whole binary: qualify with the declaring crate and its version.
    let crate_name = std::env::var("CARGO_CRATE_NAME").unwrap_or_else(|_| "unknown".into());
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let prefix = format!("HOOKS_V0_{crate_name}_{version}")
        .to_uppercase()
        .replace(|c: char| !c.is_ascii_alphanumeric(), "_");
    let items = decls.decls.iter().map(|d| {
        let PointDecl {
            attrs,
            vis,
            kind,
            name,
            ctx,
        } = d;
        let slice = format_ident!("{}_{}", prefix, name.to_string().to_uppercase());
        quote! {
            #krate::__private::declare_point! {
                #(#attrs)*
                #vis #kind #name : #ctx => #slice
            }
        }
    });
    quote!(#(#items)*)
}
