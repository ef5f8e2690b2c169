//! Risks ahead of each instance's jobs (`sundial_engine::risks`): judged from the last good read
//! once per read and horizon, when someone asks (a page, the API), on the blocking pool, and
//! kept until the next read.
use chrono::{DateTime, Utc};
use std::sync::Arc;
use sundial_engine::Zone;
use sundial_engine::risks::Risk;
use sundial_model::RisksData;

use super::{FleetBackend, Instance};

/// What one instance keeps: the read it judged (`GoodRead::at`) and each horizon asked of it.
#[derive(Default)]
pub(super) struct Kept {
    read: Option<DateTime<Utc>>,
    horizons: Vec<(u32, Arc<Vec<Risk>>)>,
}

/// One instance's risks over a horizon, as of its read.
pub(super) struct Ahead {
    pub risks: Arc<Vec<Risk>>,
    pub now: DateTime<Utc>,
    pub tz: Zone,
}

impl Instance {
    /// The risks of the last good read over `days` from its now; `None` before a good read.
    pub(super) async fn risks(&self, days: u32) -> Option<Ahead> {
        let good = self.state.borrow().good.clone()?;
        let (now, tz) = (good.read.now, good.read.input.tz);
        // Held while judging: concurrent askers wait for the one judgment.
        let mut kept = self.risks.lock().await;
        if kept.read != Some(good.at) {
            *kept = Kept { read: Some(good.at), horizons: Vec::new() };
        }
        if let Some((_, r)) = kept.horizons.iter().find(|(d, _)| *d == days) {
            return Some(Ahead { risks: r.clone(), now, tz });
        }
        let judge = move || sundial_model::ssr::risks::of_input(&good.whole().input, now, days);
        match tokio::task::spawn_blocking(judge).await {
            Ok(r) => {
                let r = Arc::new(r);
                kept.horizons.push((days, r.clone()));
                Some(Ahead { risks: r, now, tz })
            }
            Err(e) => {
                tracing::error!(instance = %self.reader.config.name, error = %e, "judging the risks ahead failed");
                None
            }
        }
    }
}

impl FleetBackend {
    /// Every instance's risks (or `instance`'s) over `days`, as pages show them.
    pub(super) async fn risks_data(&self, instance: Option<&str>, days: u32) -> RisksData {
        let mut data = RisksData { days, ..Default::default() };
        let mut judged = Vec::new();
        for i in self.instances.iter().filter(|i| instance.is_none_or(|n| i.reader.config.name == n)) {
            let name = &i.reader.config.name;
            match i.risks(days).await {
                Some(a) => judged.push((name, a)),
                None => data.unjudged.push(name.clone()),
            }
        }
        // A list of several instances' risks shows every time in one zone (as triage does):
        // theirs when they share one, else UTC.
        let zone = sundial_model::triage::page_zone(judged.iter().map(|(_, a)| a.tz));
        let from = judged.iter().map(|(_, a)| a.now).min();
        for (name, a) in &judged {
            data.risks.extend(sundial_model::ssr::risks::rows(name, zone, &a.risks));
        }
        sundial_model::ssr::risks::sort(&mut data.risks);
        if let Some(f) = from {
            let h = sundial_model::ssr::risks::horizon(f, days);
            data.from = Some(sundial_model::TimePoint::new(h.start, 0));
            data.to = Some(sundial_model::TimePoint::new(h.end, 0));
        }
        data
    }
}
