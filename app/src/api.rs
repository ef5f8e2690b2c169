//! Server functions and the wire types pages receive.
//! (Owner: ui. Stub.)

#[cfg(feature = "ssr")]
pub mod ssr {
    //! The seam between pages and the server's sources.
    use crate::engine::fleet::InstanceReport;
    use std::{future::Future, pin::Pin, sync::Arc};

    pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

    /// What pages read. The server implements it over its sources (cached); tests implement
    /// it over fixtures.
    pub trait Backend: Send + Sync + 'static {
        /// The instance report for the `days`-long window ending at the instance's "now".
        fn report(&self, days: u32) -> BoxFuture<'_, Result<Arc<InstanceReport>, String>>;
    }

    /// Put in leptos context by the server.
    #[derive(Clone)]
    pub struct BackendHandle(pub Arc<dyn Backend>);
}
