//! The builder's methods: providers, hooks, switches and defaults, and `build`.

use super::*;

impl HooksBuilder {
    /// Add a provider: its methods become entries (named [`HooksProvider::name`], order 0) of
    /// the standard points it declares ([`HooksProvider::points`], every point by default).
    pub fn provider(self, provider: impl HooksProvider) -> Self {
        self.provider_at(0, provider)
    }

    /// Add a provider whose entries sort at `order`.
    pub fn provider_at(self, order: i32, provider: impl HooksProvider) -> Self {
        self.provider_arc(order, Arc::new(provider))
    }

    /// Add a provider that is already shared. Its [`name`](HooksProvider::name),
    /// [`points`](HooksProvider::points) and
    /// [`enabled_by_default`](HooksProvider::enabled_by_default) are asked now, once.
    pub fn provider_arc(mut self, order: i32, provider: Arc<dyn HooksProvider>) -> Self {
        self.state
            .providers
            .push(ProviderSlot::new(order, provider));
        self
    }

    /// Add a hook built from a closure.
    pub fn hook<P: HookPoint>(mut self, hook: Hook<P>) -> Self {
        self.state.know::<P>();
        self.state.push_hook(hook);
        self
    }

    /// Disable the hooks named `name` (as `HOOKS_DISABLE` does). A disabled name stays off
    /// even if it is also enabled.
    pub fn disable(mut self, name: impl Into<String>) -> Self {
        self.state.disabled.insert(name.into());
        self
    }

    /// Switch on the opt-in hooks and providers named `name` (as `HOOKS_ENABLE` does; see
    /// [`Hook::enabled_by_default`] and [`HooksProvider::enabled_by_default`]). A name that is
    /// also disabled stays off. Enabling a hook that is on by default changes nothing.
    pub fn enable(mut self, name: impl Into<String>) -> Self {
        self.state.enabled.insert(name.into());
        self
    }

    /// Override the timeout of the hooks named `name` (whatever their own setting).
    pub fn timeout(mut self, name: impl Into<String>, timeout: Duration) -> Self {
        self.state.timeouts.insert(name.into(), timeout);
        self
    }

    /// Set the default timeout of hooks at point `P` that do not set their own.
    pub fn point_timeout<P: HookPoint>(mut self, timeout: Duration) -> Self {
        self.state
            .point_timeouts
            .insert(P::NAME.to_owned(), timeout);
        self
    }

    /// Set the default timeout of every hook that has none of its own, at points without a
    /// [`point_timeout`](HooksBuilder::point_timeout) (as `HOOKS_TIMEOUT_MS` does; a valid
    /// `HOOKS_TIMEOUT_MS` replaces this value when the environment is read). It replaces the
    /// built-in [`default_timeout`] of each point.
    ///
    /// Which timeout a hook gets, first found wins: [`timeout`](HooksBuilder::timeout) by
    /// name, the hook's own (`#[hook(timeout_ms = N)]`, [`Hook::timeout`]), the builder's
    /// `point_timeout`, this global default, the point's built-in default.
    pub fn global_timeout(mut self, timeout: Duration) -> Self {
        self.state.global_timeout = Some(timeout);
        self
    }

    /// Override the failure policy of the hooks named `name`.
    pub fn on_error(mut self, name: impl Into<String>, policy: OnError) -> Self {
        self.state.on_error.insert(name.into(), policy);
        self
    }

    /// Log every hook run at `info` level (as `HOOKS_DEBUG=1` does).
    pub fn debug(mut self, on: bool) -> Self {
        self.state.debug = on;
        self
    }

    /// Publish on `bus` instead of a bus of the value's own, for instance one bus for every
    /// tenant's hook set.
    pub fn bus(mut self, bus: Bus) -> Self {
        self.bus = Some(bus);
        self
    }

    /// Do not read the `HOOKS_*` variables ([`ENV_VARS`]): for tests, for embedders that
    /// configure everything in code, and for any process whose environment the agent it
    /// guards can set (the `hooks` binary and the daemon): there, `HOOKS_DISABLE` would let
    /// the agent switch a guard off. The builder calls
    /// ([`disable`](HooksBuilder::disable), [`enable`](HooksBuilder::enable),
    /// [`global_timeout`](HooksBuilder::global_timeout), [`debug`](HooksBuilder::debug))
    /// still apply. The last of `ignore_env` and [`env_source`](HooksBuilder::env_source)
    /// called decides.
    pub fn ignore_env(mut self) -> Self {
        self.read_env = false;
        self.env_source = None;
        self
    }

    /// Read the `HOOKS_*` variables from `lookup` (given a variable's name, its value)
    /// instead of the process environment: for embedders that keep these switches in their
    /// own configuration, and for tests, which then need not change the process environment.
    /// The last of `env_source` and [`ignore_env`](HooksBuilder::ignore_env) called decides.
    ///
    /// ```
    /// use hookrail_core::runtime::Hooks;
    ///
    /// let vars = [("HOOKS_DEBUG", "1"), ("HOOKS_TIMEOUT_MS", "2500")];
    /// let hooks = Hooks::builder()
    ///     .env_source(move |name| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string()))
    ///     .build()?;
    /// assert!(hooks.debug());
    /// # Ok::<(), hookrail_core::runtime::HooksError>(())
    /// ```
    pub fn env_source(
        mut self,
        lookup: impl Fn(&str) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.read_env = true;
        self.env_source = Some(Box::new(lookup));
        self
    }

    /// Build the hook set.
    ///
    /// # Errors
    ///
    /// [`HooksError::DuplicateName`] if two hooks at one point have the same name.
    pub fn build(mut self) -> Result<Hooks, HooksError> {
        if self.read_env {
            let env = match &self.env_source {
                Some(lookup) => EnvSwitches::from_lookup(lookup),
                None => EnvSwitches::from_env(),
            };
            self.state.disabled.extend(env.disabled);
            self.state.enabled.extend(env.enabled);
            if env.timeout.is_some() {
                self.state.global_timeout = env.timeout;
            }
            self.state.debug |= env.debug;
        }
        let snapshot = self.state.snapshot()?;
        Ok(Hooks {
            inner: Arc::new(Inner {
                snapshot: ArcSwap::from_pointee(snapshot),
                state: Mutex::new(self.state),
                bus: self.bus.unwrap_or_default(),
            }),
        })
    }
}

impl fmt::Debug for HooksBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HooksBuilder")
            .field("providers", &self.state.providers.len())
            .field("hooks", &self.state.runtime.len())
            .field("disabled", &self.state.disabled)
            .field("enabled", &self.state.enabled)
            .field("global_timeout", &self.state.global_timeout)
            .field("read_env", &self.read_env)
            .finish_non_exhaustive()
    }
}
