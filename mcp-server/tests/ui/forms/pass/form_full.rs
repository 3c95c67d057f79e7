//! Every field kind and every `#[form]` key of the form derive: text in every format,
//! `Email`, integers and floats with bounds and defaults, `bool`, titled and untitled single
//! and multi selects with serde renames, `Option` fields, and the `#[elicit_form]` spelling.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;

use typemcp_server::{Answer, ElicitForm, Email, FormChoice, elicit_form};
use serde_json::json;

/// Untitled: the values are what the user sees.
#[derive(FormChoice, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
enum Region {
    EuCentral,
    #[serde(rename = "us")]
    UsEast,
}

/// Titled: any label makes the whole field titled.
#[derive(FormChoice, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
enum Environment {
    Staging,
    #[choice(title = "Production (customer-facing)")]
    Production,
}

/// Titled, for multi-select.
#[derive(FormChoice, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
enum Feature {
    #[choice(title = "Dark mode")]
    DarkMode,
    #[choice(title = "Beta channel")]
    BetaChannel,
}

/// Deployment settings.
#[derive(ElicitForm, Debug)]
struct Deploy {
    /// The service to deploy.
    #[form(title = "Service", min_length = 1, max_length = 40, default = "api")]
    service: String,
    #[form(format = "email", description = "Who gets paged.")]
    on_call: String,
    #[form(format = "uri")]
    dashboard: Option<String>,
    #[form(format = "date")]
    window_start: Option<String>,
    #[form(format = "date-time", min_length = 20)]
    window_end: Option<String>,
    #[form(max_length = 80)]
    owner: Email,
    #[form(minimum = 1, maximum = 12, default = 2)]
    replicas: u8,
    #[form(minimum = -40, maximum = 40)]
    offset_hours: i64,
    #[form(minimum = 0.5, maximum = 99.5, default = 50.0)]
    percent: f64,
    #[form(minimum = 0, maximum = 1)]
    ratio: Option<f32>,
    #[form(default = false)]
    dry_run: bool,
    notify: Option<bool>,
    #[form(default = Region::EuCentral)]
    region: Region,
    environment: Environment,
    #[form(legacy_enum_names, title = "Fallback environment")]
    fallback: Option<Environment>,
    #[form(min_items = 1, max_items = 2, default = vec![Region::UsEast])]
    replicate_to: Vec<Region>,
    #[form(min_items = 0, max_items = 2)]
    features: BTreeSet<Feature>,
}

/// The attribute spelling.
#[elicit_form]
#[derive(Debug)]
struct Confirm {
    #[form(title = "Are you sure?")]
    sure: bool,
}

fn main() {
    let schema = serde_json::to_value(Deploy::requested_schema()).unwrap();
    let props = &schema["properties"];

    // Declaration order, and `required` = neither `Option` nor defaulted.
    let names: Vec<&str> = props
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(names[0], "service");
    assert_eq!(names[names.len() - 1], "features");
    assert_eq!(
        schema["required"],
        json!([
            "on_call",
            "owner",
            "offset_hours",
            "environment",
            "features"
        ])
    );

    // Text.
    assert_eq!(props["service"]["type"], "string");
    assert_eq!(props["service"]["title"], "Service");
    assert_eq!(props["service"]["description"], "The service to deploy.");
    assert_eq!(props["service"]["maxLength"], 40);
    assert_eq!(props["service"]["default"], "api");
    assert_eq!(props["on_call"]["format"], "email");
    assert_eq!(props["on_call"]["description"], "Who gets paged.");
    assert_eq!(props["dashboard"]["format"], "uri");
    assert_eq!(props["window_start"]["format"], "date");
    assert_eq!(props["window_end"]["format"], "date-time");
    assert_eq!(props["owner"]["format"], "email");
    assert_eq!(props["owner"]["maxLength"], 80);

    // Numbers: integers are `integer`, floats `number`.
    assert_eq!(props["replicas"]["type"], "integer");
    assert_eq!(props["replicas"]["maximum"], 12);
    assert_eq!(props["replicas"]["default"], 2);
    assert_eq!(props["offset_hours"]["minimum"], -40);
    assert_eq!(props["percent"]["type"], "number");
    assert_eq!(props["percent"]["minimum"], 0.5);

    // Booleans.
    assert_eq!(props["dry_run"]["type"], "boolean");
    assert_eq!(props["dry_run"]["default"], false);

    // Choices: serde renames give the values; a label makes the field titled.
    assert_eq!(props["region"]["enum"], json!(["eu-central", "us"]));
    assert_eq!(props["region"]["default"], "eu-central");
    assert_eq!(props["environment"]["oneOf"][1]["const"], "production");
    assert_eq!(
        props["environment"]["oneOf"][1]["title"],
        "Production (customer-facing)"
    );
    assert_eq!(
        props["fallback"]["enumNames"],
        json!(["staging", "Production (customer-facing)"])
    );
    assert_eq!(props["replicate_to"]["type"], "array");
    assert_eq!(props["replicate_to"]["minItems"], 1);
    assert_eq!(props["replicate_to"]["default"], json!(["us"]));
    assert_eq!(props["features"]["items"]["anyOf"][0]["const"], "DARK_MODE");

    // An answer is read back, with defaults applied to absent fields.
    let answer = json!({"action": "accept", "content": {
        "on_call": "ops@example.com",
        "owner": "ann@example.com",
        "offset_hours": -2,
        "environment": "production",
        "replicate_to": ["eu-central", "us"],
        "features": ["BETA_CHANNEL"],
    }});
    match Answer::<Deploy>::read(Some(&answer)) {
        Answer::Accepted(d) => {
            assert_eq!(d.service, "api");
            assert_eq!(d.on_call, "ops@example.com");
            assert_eq!(
                (&d.dashboard, &d.window_start, &d.window_end),
                (&None, &None, &None)
            );
            assert_eq!(d.replicas, 2);
            assert_eq!(d.offset_hours, -2);
            assert_eq!((d.percent, d.ratio), (50.0, None));
            assert_eq!((d.dry_run, d.notify), (false, None));
            assert_eq!(d.region, Region::EuCentral);
            assert_eq!(d.environment, Environment::Production);
            assert_eq!(d.owner.as_str(), "ann@example.com");
            assert_eq!(d.replicate_to, vec![Region::EuCentral, Region::UsEast]);
            assert!(d.features.contains(&Feature::BetaChannel));
            assert_eq!(d.fallback, None);
        }
        other => panic!("{other:?}"),
    }

    // Out of bounds is malformed.
    let bad = json!({"action": "accept", "content": {
        "on_call": "ops@example.com",
        "owner": "ann@example.com",
        "offset_hours": 99,
        "environment": "staging",
        "replicate_to": ["us"],
        "features": [],
    }});
    assert!(matches!(
        Answer::<Deploy>::read(Some(&bad)),
        Answer::Malformed(_)
    ));

    let confirm = serde_json::to_value(Confirm::requested_schema()).unwrap();
    assert_eq!(confirm["properties"]["sure"]["title"], "Are you sure?");
    assert_eq!(confirm["required"], json!(["sure"]));
    let yes = json!({"action": "accept", "content": {"sure": true}});
    match Answer::<Confirm>::read(Some(&yes)) {
        Answer::Accepted(c) => assert!(c.sure),
        other => panic!("{other:?}"),
    }
}
