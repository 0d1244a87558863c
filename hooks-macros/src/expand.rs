//! Expansion of `#[hook]`.

use proc_macro2::{Group, Span, TokenStream as TokenStream2, TokenTree};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, GenericParam, ItemFn, Path, Safety};

use crate::args::HookArgs;

pub fn hook(args: HookArgs, func: ItemFn) -> syn::Result<TokenStream2> {
    // Another runtime's name for a standard point (`PreToolUse`) gets its own error at the
    // point; any other unknown ident reaches hookrail-core's gate, which lists the catalog.
    if let Some(ident) = args.point.get_ident()
        && let Some(message) = crate::alias::suggest(&ident.to_string())
    {
        return Err(syn::Error::new(ident.span(), message));
    }
    check_signature(&args, &func)?;

    let core: Path = args
        .krate
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::hookrail_core));
    let ident = &func.sig.ident;
    let point = &args.point;
    // A single identifier names a standard point; anything longer is the path of a point
    // declared with `hook_points!`.
    let standard = point.get_ident();
    let point_mod = match standard {
        Some(p) => quote_spanned!(p.span()=> #core::points::#p),
        None => quote!(#point),
    };
    let name = match &args.name {
        Some(lit) => quote!(#lit),
        None => quote!(::core::concat!(
            ::core::module_path!(),
            "::",
            ::core::stringify!(#ident)
        )),
    };
    let order = args.order.unwrap_or(0);
    // Only when set, so the common expansion stays as short as it was.
    let settings = (args.timeout_ms.is_some() || args.on_error_deny.is_some()).then(|| {
        let timeout_ms = args.timeout_ms.unwrap_or(0);
        let on_error = match args.on_error_deny {
            Some(true) => quote!(::core::option::Option::Some(#core::OnError::Deny)),
            Some(false) => quote!(::core::option::Option::Some(#core::OnError::Continue)),
            None => quote!(::core::option::Option::None),
        };
        quote!(.__settings(#timeout_ms, #on_error))
    });
    let file = quote_spanned!(ident.span()=> ::core::file!());
    let line = quote_spanned!(ident.span()=> ::core::line!());

    // The callee paths carry the user's fn span, so a signature mismatch is reported at the fn.
    // The whole call is located at the user's fn, so a signature mismatch is reported there;
    // `located_at` keeps call-site name resolution (the fn may come from a `macro_rules!`).
    let at_fn = Span::call_site().located_at(ident.span());
    let types = quote!(__hooks_point::__Arg<'_>, __hooks_point::__Ret, _, _);
    let func_value = if func.sig.asyncness.is_some() {
        let call = respan(
            quote!(#core::__private::call_async::<#types>(#ident, __hooks_ctx)),
            at_fn,
        );
        let boxed = quote_spanned!(at_fn=> ::std::boxed::Box::pin(__hooks_fut));
        quote! {
            #core::HookFn::Async({
                let __hooks_shim: __hooks_point::AsyncFn = |__hooks_ctx| {
                    let __hooks_fut = #call;
                    #boxed
                };
                __hooks_shim
            })
        }
    } else {
        let call = respan(
            quote!(#core::__private::call_sync::<#types>(#ident, __hooks_ctx)),
            at_fn,
        );
        quote! {
            #core::HookFn::Sync({
                let __hooks_shim: __hooks_point::SyncFn = |__hooks_ctx| #call;
                __hooks_shim
            })
        }
    };

    let register = quote! {
        #[doc(hidden)]
        const _: () = {
            // The point's path is named once, so that a wrong path is one error.
            use #point_mod as __hooks_point;
            #core::__private::register_hook! {
                slice: __hooks_point::SLICE,
                point: __hooks_point::Point,
                entry: #core::HookEntry::<__hooks_point::Point>::__new(
                    #name,
                    #order,
                    #file,
                    #line,
                    #func_value,
                )
                #settings
            }
        };
    };

    let register = match standard {
        Some(p) => {
            // Every token of the gate's invocation carries the point's span, so an unknown
            // point is reported at the point, not at the whole attribute.
            let invocation = quote!(#core::__private::core_point! { #p => { #register } });
            respan_outer(invocation, p.span())
        }
        None => register,
    };

    Ok(quote! {
        #func
        #register
    })
}

/// Give every token (recursively) `span`. Used for callee paths, so that a failed bound on the
/// call is reported at the user's fn.
fn respan(tokens: TokenStream2, span: Span) -> TokenStream2 {
    tokens
        .into_iter()
        .map(|mut tt| {
            if let TokenTree::Group(g) = &tt {
                let mut group = Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                tt = TokenTree::Group(group);
            } else {
                tt.set_span(span);
            }
            tt
        })
        .collect()
}

/// Give the top-level tokens and group delimiters `span`, leaving the contents of groups as
/// they are.
fn respan_outer(tokens: TokenStream2, span: Span) -> TokenStream2 {
    tokens
        .into_iter()
        .map(|mut tt| {
            tt.set_span(span);
            tt
        })
        .collect()
}

/// Syntactic checks, each reported at the offending tokens. All problems are reported at once.
fn check_signature(args: &HookArgs, func: &ItemFn) -> syn::Result<()> {
    let sig = &func.sig;
    let mut errors: Vec<syn::Error> = Vec::new();
    let point = args
        .point
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default();

    if let Some(receiver) = sig.receiver() {
        errors.push(syn::Error::new(
            receiver.span(),
            "a hook must be a free function: `self` is not allowed (call your method from a \
             free `fn` instead)",
        ));
    }
    for param in &sig.generics.params {
        match param {
            GenericParam::Type(t) => errors.push(syn::Error::new(
                t.span(),
                "a hook cannot be generic over types: it is registered once, for one context \
                 type",
            )),
            GenericParam::Const(c) => errors.push(syn::Error::new(
                c.span(),
                "a hook cannot have const generic parameters",
            )),
            GenericParam::Lifetime(_) => {}
        }
    }
    if let Safety::Unsafe(token) = &sig.safety {
        errors.push(syn::Error::new(
            token.span(),
            "a hook cannot be an `unsafe fn`",
        ));
    }
    if let Some(abi) = &sig.abi {
        errors.push(syn::Error::new(
            abi.span(),
            "a hook cannot have an `extern` ABI; use a plain Rust `fn`",
        ));
    }
    if let Some(variadic) = &sig.variadic {
        errors.push(syn::Error::new(
            variadic.span(),
            "a hook cannot be variadic",
        ));
    }
    for arg in &sig.inputs {
        if let FnArg::Typed(pat) = arg
            && let syn::Type::ImplTrait(t) = &*pat.ty
        {
            errors.push(syn::Error::new(
                t.span(),
                "a hook takes the point's context type, not `impl Trait`: it is registered once, \
                 for one context type",
            ));
        }
    }
    let typed = sig
        .inputs
        .iter()
        .filter(|a| matches!(a, FnArg::Typed(_)))
        .count();
    if sig.receiver().is_none() && typed != 1 {
        // Point at the first extra argument, or at the empty parentheses.
        let span = match sig.inputs.iter().nth(1) {
            Some(extra) => extra.span(),
            None => sig.paren_token.span.join(),
        };
        errors.push(syn::Error::new(
            span,
            format!(
                "a `{point}` hook takes exactly one argument, the point's context \
                 (`ctx: &mut Context` for guards and transforms, `ctx: &Context` for \
                 observers and recoverers); found {typed}"
            ),
        ));
    }

    let mut errors = errors.into_iter();
    match errors.next() {
        None => Ok(()),
        Some(mut first) => {
            for e in errors {
                first.combine(e);
            }
            Err(first)
        }
    }
}

#[cfg(test)]
mod tests {
    //! The expansion, checked as text: the structure the runtime relies on, without snapshotting
    //! linkme's own expansion (which changes with every linkme release).

    use super::*;

    fn expand(attr: &str, item: &str) -> syn::Result<String> {
        let args: HookArgs = syn::parse_str(attr)?;
        let func: ItemFn = syn::parse_str(item)?;
        hook(args, func).map(|t| t.to_string())
    }

    const GUARD: &str = "fn deny(ctx: &mut PreToolUse) -> Verdict { Verdict::Continue }";

    #[test]
    fn standard_point_goes_through_the_catalog_gate_with_default_name_and_order() {
        let out = expand("pre_tool_use", GUARD).unwrap();
        assert!(
            out.starts_with("fn deny"),
            "the user's fn is kept first: {out}"
        );
        assert!(
            out.contains(":: hookrail_core :: __private :: core_point !"),
            "{out}"
        );
        assert!(out.contains("use :: hookrail_core :: points :: pre_tool_use as __hooks_point"));
        assert!(
            out.contains("module_path ! ()"),
            "default name is module path + fn: {out}"
        );
        assert!(out.contains(", 0i32 ,"), "default order is 0: {out}");
        assert!(out.contains("HookFn :: Sync"), "{out}");
    }

    #[test]
    fn path_point_skips_the_gate_and_async_fn_registers_an_async_shim() {
        let out = expand(
            "my_crate::points::audit, order = -7, name = \"audit\", crate = ::renamed",
            "async fn audit(ctx: &Audit) {}",
        )
        .unwrap();
        assert!(!out.contains("core_point"), "{out}");
        assert!(
            out.contains("use my_crate :: points :: audit as __hooks_point"),
            "{out}"
        );
        assert!(out.contains("- 7i32"), "{out}");
        assert!(out.contains("\"audit\""), "{out}");
        assert!(out.contains(":: renamed :: HookFn :: Async"), "{out}");
        assert!(out.contains("Box :: pin"), "{out}");
    }

    #[test]
    fn every_signature_problem_is_reported_at_once() {
        let err = expand(
            "pre_tool_use",
            "unsafe extern \"C\" fn bad<T>(a: &mut T, b: u8) -> Verdict { todo!() }",
        )
        .unwrap_err();
        let messages: Vec<String> = err.into_iter().map(|e| e.to_string()).collect();
        assert_eq!(messages.len(), 4, "{messages:#?}");
        assert!(messages.iter().any(|m| m.contains("generic over types")));
        assert!(messages.iter().any(|m| m.contains("`unsafe fn`")));
        assert!(messages.iter().any(|m| m.contains("`extern` ABI")));
        assert!(messages.iter().any(|m| m.contains("found 2")));
    }
}
