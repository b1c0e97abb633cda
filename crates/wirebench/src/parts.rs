//! The one registry of study parts ([`REGISTRY`]): every part a study file can name, in run
//! order, which is also the order of the report's sections. Each entry pairs a typed part
//! ([`wirebench_core::part::Part`], unchanged) with its section view. `--version`, the study
//! reader (its tables, the hint of a study without parts), `run`, where `--samples` and
//! `--schema` go, every report kind and the parts list of `docs/architecture.md` come from it.
//!
//! Adding a part costs its `Results` field (or none: a section this build has no field for is
//! kept in `Results::other`), its view in `wirebench-report`, and one line here.

use std::any::Any;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use serde::de::{DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::Serialize;
use wirebench_core::part::{Part, PartError};
use wirebench_core::results::Results;
use wirebench_measure::study::inputs::{Inputs, SchemaArgs};
use wirebench_report::View;

/// The options of a part as the registry handles them: the study file's paths they hold and,
/// for a part that encodes messages, the shared inputs (`--corpus`, `--samples`, `--schema`).
pub trait Opts: DeserializeOwned + Serialize + Send + Sync + 'static {
    /// Whether the part encodes messages it is given ([`Opts::inputs_mut`] gives them).
    const INPUTS: bool = false;
    /// The part's inputs (its `Inputs`, flattened into the options), for a part that takes them.
    fn inputs_mut(&mut self) -> Option<&mut Inputs> {
        None
    }
    /// The part's own file paths besides its samples and schema (made relative to the study
    /// file's folder).
    fn own_paths_mut(&mut self) -> Vec<&mut PathBuf> {
        Vec::new()
    }
    /// Measure these samples instead of the part's own messages.
    fn use_samples(&mut self, samples: &[PathBuf]) {
        if let Some(i) = self.inputs_mut() {
            i.use_samples(samples);
        }
    }
}

/// The options of a part whose only inputs are its `inputs` field.
macro_rules! takes_inputs {
    ($($opts:ty),*) => {$(
        impl Opts for $opts {
            const INPUTS: bool = true;
            fn inputs_mut(&mut self) -> Option<&mut Inputs> {
                Some(&mut self.inputs)
            }
        }
    )*};
}

/// A part of a study, as the study runner and the reports see it (object safe).
pub trait StudyPart: Sync {
    /// The part's table in a study file and its section in the results file.
    fn name(&self) -> &'static str;
    /// What the part measures, in a few words (the docs' list, the hint of an empty study).
    fn about(&self) -> &'static str;
    /// Whether `--samples` and `--schema` reach the part.
    fn takes_inputs(&self) -> bool;
    /// The part's table of a study text, typed; `None` when the study has no such table.
    fn read(&self, text: &str) -> Result<Option<Box<dyn Planned>>, toml::de::Error>;
    /// The part's section in every report kind.
    fn view(&self) -> View;
}

/// A part's options as read from a study: checked, then run into the results.
pub trait Planned: Send + Sync {
    fn validate(&self) -> Result<(), PartError>;
    /// Measure, and put the section into `results` (which holds the sections of the parts
    /// that ran before: the energy part reuses the device lab's).
    fn run(&self, results: &mut Results) -> Result<(), PartError>;
    /// The options as the results file records them.
    fn to_value(&self) -> serde_json::Value;
    /// Make every relative path of the options (samples, schema, the part's own files)
    /// relative to `base`, the study file's folder.
    fn resolve_paths(&mut self, base: &Path);
    fn use_samples(&mut self, samples: &[PathBuf]);
    fn schema_mut(&mut self) -> Option<&mut SchemaArgs>;
    /// The typed options (see [`crate::study::Study::opts`]).
    fn options(&self) -> &dyn Any;
}

/// A typed part in the registry: its view and where its section goes in `Results`.
pub struct Typed<P: Part> {
    pub about: &'static str,
    pub view: View,
    /// Run the part; the results so far are at hand (default: [`Part::run`]).
    pub run: fn(&P::Options, &Results) -> Result<P::Section, PartError>,
    pub store: fn(&mut Results, P::Section),
    pub _part: PhantomData<fn() -> P>,
}

/// [`Part::run`], ignoring the results so far.
pub fn plain_run<P: Part>(o: &P::Options, _: &Results) -> Result<P::Section, PartError> {
    P::run(o)
}

struct PlannedPart<P: Part> {
    opts: P::Options,
    run: fn(&P::Options, &Results) -> Result<P::Section, PartError>,
    store: fn(&mut Results, P::Section),
}

impl<P> Planned for PlannedPart<P>
where
    P: Part + 'static,
    P::Options: Opts,
{
    fn validate(&self) -> Result<(), PartError> {
        P::validate(&self.opts)
    }

    fn run(&self, results: &mut Results) -> Result<(), PartError> {
        let section = (self.run)(&self.opts, results)?;
        (self.store)(results, section);
        Ok(())
    }

    fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(&self.opts).expect("options serialize")
    }

    fn resolve_paths(&mut self, base: &Path) {
        for p in self.opts.own_paths_mut() {
            relative_to(base, p);
        }
        if let Some(i) = self.opts.inputs_mut() {
            i.samples.iter_mut().for_each(|p| relative_to(base, p));
            i.schema.resolve_paths(base);
        }
    }

    fn use_samples(&mut self, samples: &[PathBuf]) {
        self.opts.use_samples(samples)
    }

    fn schema_mut(&mut self) -> Option<&mut SchemaArgs> {
        self.opts.inputs_mut().map(|i| &mut i.schema)
    }

    fn options(&self) -> &dyn Any {
        &self.opts
    }
}

impl<P> StudyPart for Typed<P>
where
    P: Part + 'static,
    P::Options: Opts,
{
    fn name(&self) -> &'static str {
        P::NAME
    }

    fn about(&self) -> &'static str {
        self.about
    }

    fn takes_inputs(&self) -> bool {
        P::Options::INPUTS
    }

    fn read(&self, text: &str) -> Result<Option<Box<dyn Planned>>, toml::de::Error> {
        let de = toml::de::Deserializer::parse(text)?;
        let opts: Option<P::Options> = Table::<P::Options>(P::NAME, PhantomData).deserialize(de)?;
        Ok(opts.map(|opts| Box::new(PlannedPart::<P> { opts, run: self.run, store: self.store }) as Box<dyn Planned>))
    }

    fn view(&self) -> View {
        self.view
    }
}

/// Deserializes the table `.0` of a TOML document as `T`, ignoring the other tables (so an
/// error in it keeps its line and column in the document).
struct Table<T>(&'static str, PhantomData<T>);

impl<'de, T: DeserializeOwned> DeserializeSeed<'de> for Table<T> {
    type Value = Option<T>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Option<T>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, T: DeserializeOwned> Visitor<'de> for Table<T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "a study file")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<T>, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == self.0 {
                found = Some(map.next_value::<T>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// The entry of a typed part: its view, and the `Results` field its section goes into.
macro_rules! part {
    ($name:ident: $part:ty, $about:expr, $view:expr, $field:ident) => {
        part!($name: $part, $about, $view, $field, plain_run::<$part>);
    };
    ($name:ident: $part:ty, $about:expr, $view:expr, $field:ident, $run:expr) => {
        pub static $name: Typed<$part> = Typed {
            about: $about,
            view: $view,
            run: $run,
            store: |r, s| r.$field = Some(s),
            _part: PhantomData,
        };
    };
}

/// A view from the results field of the same name and the report's renderers.
macro_rules! view {
    ($key:literal, $field:ident, $text:path, $csv:path, $html:path) => {
        View { key: $key, has: |r| r.$field.is_some(), text: $text, csv: $csv, html: $html }
    };
}

use wirebench_report as report;

/// Every part, in run order (= report order).
pub static REGISTRY: &[&dyn StudyPart] =
    &[&SIZE, &SPEED, &EVOLVE, &LINK, &MQTT, &HTTP, &TCP, &DDS, &DEVICE, &ENERGY, &MICROPYTHON, &FLEET];

part!(
    SIZE: wirebench_measure::study::size::SizePart,
    "encoded size (raw, zstd, deflate) of every message in every codec, with round-trip fidelity",
    view!("size", size, report::size::render, report::size::csv_tables, report::html::size_section),
    size
);
part!(
    SPEED: wirebench_measure::study::speed::SpeedPart,
    "encode and decode time per message, with confidence intervals, allocations and instruction counts",
    view!("speed", speed, report::speed::render, report::speed::csv_tables, report::html::speed_section),
    speed
);
part!(
    EVOLVE: wirebench_measure::study::evolve::EvolvePart,
    "schema evolution: each format's reader of the other schema version, both directions, and the bytes evolvability costs",
    view!("evolve", evolve, report::evolve::render, report::evolve::csv_tables, report::evolve::html_section),
    evolve
);
part!(
    LINK: wirebench_net::study::link::LinkPart,
    "bytes on air, airtime and messages per day on LPWAN and cellular links (analytic models)",
    view!("link", link, report::net::render_link, report::net::csv_link, report::net::link_section),
    link
);
part!(
    MQTT: wirebench_mqtt::study::MqttPart,
    "MQTT throughput, delivery and round-trip time through real brokers",
    view!("mqtt", mqtt, report::mqtt::render, report::mqtt::csv_tables, report::mqtt::html_section),
    mqtt
);
part!(
    HTTP: wirebench_net::study::http::HttpPart,
    "HTTP POST throughput of encoded bodies against a validating collector",
    view!("http", http, report::net::render_http, report::net::csv_http, report::net::http_section),
    http
);
part!(
    TCP: wirebench_net::study::tcp::TcpPart,
    "length-prefixed messages over TCP at a fixed cadence: latency, jitter, throughput",
    view!("tcp", tcp, report::net::render_tcp, report::net::csv_tcp, report::net::tcp_section),
    tcp
);
part!(
    DDS: wirebench_dds::study::DdsPart,
    "DDS latency and throughput (Cyclone DDS, CDR vs JSON), beside ddsperf",
    view!("dds", dds, report::dds::render, report::dds::csv_tables, report::dds::html_section),
    dds
);
part!(
    DEVICE: wirebench_device::part::DevicePart,
    "cycles, flash, RAM and stack of the C codecs and libraries on AVR and Cortex-M",
    view!("device", device, report::device::render, report::device::csv_tables, report::device::html_section),
    device
);
part!(
    ENERGY: wirebench_net::energy::EnergyPart,
    "energy per message and battery life per radio, from the device lab and the link models",
    view!("energy", energy, report::energy::render, report::energy::csv_tables, report::energy::html_section),
    energy,
    energy_run
);
part!(
    MICROPYTHON: wirebench_measure::micropython::MicroPythonPart,
    "the Python device codecs on MicroPython: time, heap and import cost",
    view!("micropython", micropython, report::micropython::render, report::micropython::csv_tables, report::micropython::html_section),
    micropython
);
part!(
    FLEET: wirebench_mqtt::fleet::part::FleetPart,
    "a fleet of simulated devices publishing through a broker: delivery, latency, harness cost",
    view!("fleet", fleet, report::fleet::render, report::fleet::csv_tables, report::fleet::html_section),
    fleet
);

/// The command line of a part that is its own command (link, http, tcp, energy).
#[derive(clap::Args)]
pub struct PartArgs<T: clap::Args> {
    #[command(flatten)]
    pub opts: T,
    #[arg(long, short = 'o', value_enum, default_value_t = crate::OutputArg::Table)]
    pub output: crate::OutputArg,
    /// Also write the results file (JSON) here, atomically.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// `wirebench PART [options]` for a part that is its own command: its options checked and run
/// once, the results file written (`--out`), the report printed in the output kind asked
/// (`-o json`: the whole results file).
pub fn run_command<P>(entry: &Typed<P>, args: PartArgs<P::Options>) -> anyhow::Result<()>
where
    P: Part + 'static,
    P::Options: Opts + clap::Args,
{
    let (opts, output, out) = (&args.opts, args.output, args.out.as_deref());
    use crate::common::{claim_output, part_error, provenance, write_results, write_stdout};
    P::validate(opts).map_err(part_error)?;
    let _out_lock = claim_output(out)?;
    let mut results = Results::new(provenance(0), serde_json::json!({"measurement": P::NAME, "options": opts}));
    let section = (entry.run)(opts, &results).map_err(part_error)?;
    (entry.store)(&mut results, section);
    if let Some(out) = out {
        write_results(&results, out)?;
    }
    let text = match output {
        crate::OutputArg::Json => serde_json::to_string_pretty(&results).expect("results serialize") + "\n",
        o => (entry.view.text)(&results, o.into()),
    };
    write_stdout(text.as_bytes())
}

/// The energy part reuses the device lab measured earlier in the same study.
fn energy_run(
    o: &wirebench_net::energy::EnergyOpts,
    r: &Results,
) -> Result<wirebench_core::sections::energy::EnergySection, PartError> {
    match r.device.as_ref().and_then(|d| d.lab.as_ref()) {
        Some(lab) => wirebench_net::energy::run_with_lab(o, lab),
        None => <wirebench_net::energy::EnergyPart as Part>::run(o),
    }
}

/// The registry's part names, in run order.
pub fn names(registry: &[&dyn StudyPart]) -> Vec<&'static str> {
    registry.iter().map(|p| p.name()).collect()
}

/// `run --help` on the study file: the tables a study holds, from the registry.
pub fn study_help() -> String {
    let mut out = String::from(
        "The study file (TOML), e.g. studies/seed001-pson-paper.toml, or a built-in study's name. Without one, \
         --samples runs the size, speed and link parts on your payloads. A study holds [study] (name, title), \
         the parts it runs, in this order:\n",
    );
    for p in REGISTRY {
        out.push_str(&format!("  [{}] {}\n", p.name(), p.about()));
    }
    out.push_str("and optionally [ci], the reduced scale of --ci.");
    out
}

/// A help text followed by the parts `--samples` and `--schema` reach, and those they do not.
pub fn inputs_help(what: &str) -> String {
    let (take, own): (Vec<&dyn StudyPart>, Vec<&dyn StudyPart>) = REGISTRY.iter().partition(|p| p.takes_inputs());
    let list = |v: &[&dyn StudyPart]| v.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ");
    format!("{what}: {}. The other parts ({}) send their own messages.", list(&take), list(&own))
}

/// The views of every report, in order: the answer and the parts that did not finish, then
/// each part's section.
pub fn views(registry: &[&dyn StudyPart]) -> Vec<View> {
    wirebench_report::FRAME.iter().copied().chain(registry.iter().map(|p| p.view())).collect()
}

/// The parts list of `docs/architecture.md` (between its markers), from the registry.
#[cfg(test)]
pub fn docs_list(registry: &[&dyn StudyPart]) -> String {
    let mut out = String::from("| part | measures | takes `--samples` / `--schema` |\n|---|---|---|\n");
    for p in registry {
        out.push_str(&format!(
            "| `[{}]` | {} | {} |\n",
            p.name(),
            p.about(),
            if p.takes_inputs() { "yes" } else { "no (its own messages)" }
        ));
    }
    out
}

fn relative_to(base: &Path, p: &mut PathBuf) {
    if p.is_relative() {
        *p = base.join(&*p);
    }
}

// What each part's options hold: the shared inputs and the part's own paths.

takes_inputs!(
    wirebench_measure::study::size::SizeOpts,
    wirebench_measure::study::speed::SpeedOpts,
    wirebench_net::study::http::HttpOpts,
    wirebench_net::study::tcp::TcpOpts
);

impl Opts for wirebench_net::study::link::LinkOpts {
    const INPUTS: bool = true;
    fn inputs_mut(&mut self) -> Option<&mut Inputs> {
        Some(&mut self.inputs)
    }
    fn use_samples(&mut self, samples: &[PathBuf]) {
        self.payload_bytes.clear();
        self.inputs.use_samples(samples);
    }
}

impl Opts for wirebench_mqtt::study::StudyOpts {
    fn own_paths_mut(&mut self) -> Vec<&mut PathBuf> {
        self.ca_file.iter_mut().chain(self.client_cert.iter_mut()).chain(self.client_key.iter_mut()).collect()
    }
}

impl Opts for wirebench_dds::study::StudyOpts {}

impl Opts for wirebench_measure::study::evolve::EvolveOpts {
    fn own_paths_mut(&mut self) -> Vec<&mut PathBuf> {
        self.from.iter_mut().chain(self.to.iter_mut()).collect()
    }
}

impl Opts for wirebench_device::part::DeviceOpts {
    const INPUTS: bool = true;
    fn inputs_mut(&mut self) -> Option<&mut Inputs> {
        Some(&mut self.inputs)
    }
    fn own_paths_mut(&mut self) -> Vec<&mut PathBuf> {
        self.c_dir.iter_mut().collect()
    }
    fn use_samples(&mut self, samples: &[PathBuf]) {
        self.payloads.clear();
        self.inputs.use_samples(samples);
    }
}

impl Opts for wirebench_net::energy::EnergyOpts {
    const INPUTS: bool = true;
    fn inputs_mut(&mut self) -> Option<&mut Inputs> {
        Some(&mut self.inputs)
    }
    fn own_paths_mut(&mut self) -> Vec<&mut PathBuf> {
        self.device_results.iter_mut().chain(self.energy_data.iter_mut()).collect()
    }
    fn use_samples(&mut self, samples: &[PathBuf]) {
        // Measured results given as input stay the part's input: the samples go to a lab run.
        if self.device_results.is_none() {
            self.inputs.use_samples(samples);
        }
    }
}

impl Opts for wirebench_measure::micropython::MicroPythonOpts {
    fn own_paths_mut(&mut self) -> Vec<&mut PathBuf> {
        self.python_dir.iter_mut().collect()
    }
}

impl Opts for wirebench_mqtt::fleet::part::FleetOpts {
    const INPUTS: bool = true;
    fn inputs_mut(&mut self) -> Option<&mut Inputs> {
        Some(&mut self.inputs)
    }
    fn own_paths_mut(&mut self) -> Vec<&mut PathBuf> {
        self.ca_file.iter_mut().chain(self.client_cert.iter_mut()).chain(self.client_key.iter_mut()).collect()
    }
}
