//! Support code for the workspace's examples: a scripted agent (fake model, real tools) that
//! drives every hook point. Not published.
