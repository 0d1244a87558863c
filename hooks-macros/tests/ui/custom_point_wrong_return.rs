use hooks_core::hook;

pub mod points {
    pub struct AuthFailure;
    hooks_core::hook_points! {
        pub observe auth_failure: AuthFailure;
    }
}

// Observers return `()`: they cannot veto.
#[hook(crate::points::auth_failure)]
fn veto(_ctx: &points::AuthFailure) -> hooks_core::Verdict {
    hooks_core::Verdict::deny("no")
}

fn main() {}
