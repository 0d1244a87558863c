//! Procedural macros for `hookrail-core`. Use them through `hookrail_core::hook` and
//! `hookrail_core::hook_points!`; this crate is an implementation detail and generates calls into
//! `hookrail_core::__private`.
//!
//! The macros only check syntax (arity, receivers, generics, arguments) and emit code; every type
//! check happens in generated calls to `hookrail_core::__private`, spanned at the user's function so
//! errors point there.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;

mod alias;
mod args;
mod expand;
mod points;

/// Registers a `fn` or `async fn` as a hook. Documented at `hookrail_core::hook`.
#[proc_macro_attribute]
pub fn hook(args: TokenStream, item: TokenStream) -> TokenStream {
    let original: TokenStream2 = item.clone().into();
    let args = match syn::parse::<args::HookArgs>(args) {
        Ok(args) => args,
        Err(e) => return with_error(original, e),
    };
    let func = match syn::parse::<syn::ItemFn>(item) {
        Ok(func) => func,
        Err(e) => return with_error(original, e),
    };
    match expand::hook(args, func) {
        Ok(tokens) => tokens.into(),
        Err(e) => with_error(original, e),
    }
}

/// Declares hook points. Documented at `hookrail_core::hook_points!`.
#[proc_macro]
pub fn hook_points(input: TokenStream) -> TokenStream {
    match syn::parse::<points::PointDecls>(input) {
        Ok(decls) => points::expand(decls).into(),
        Err(e) => e.into_compile_error().into(),
    }
}

/// On error, keep the user's item so that there is no cascade of "cannot find function" errors
/// and IDEs keep working; the error is emitted beside it.
fn with_error(mut item: TokenStream2, e: syn::Error) -> TokenStream {
    item.extend(e.into_compile_error());
    item.into()
}
