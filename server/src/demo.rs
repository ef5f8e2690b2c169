//! The demo instance: about 40 jobs and 60 days of history simulated through the engine. (Owner: demo. Stub.)
