use hookrail_core::hook;

pub mod points {
    pub struct AuthFailure;
    hookrail_core::hook_points! {
        pub observe auth_failure: AuthFailure;
    }
}

// Observers return `()`: they cannot veto.
#[hook(crate::points::auth_failure)]
fn veto(_ctx: &points::AuthFailure) -> hookrail_core::Verdict {
    hookrail_core::Verdict::deny("no")
}

fn main() {}
