//! The examples driven by `typemcp-client` as a user's test would drive them: every example
//! server over stdio (a child process) and over Streamable HTTP (started on a free port), in
//! both eras (2026-07-28 chosen automatically, a 2025-11-25 session forced), listing the same
//! tools everywhere and answering one call (the questions it asks answered too); the `deploy`
//! flow's three rounds answered with form types mirroring the example's own (a confirmation,
//! a rollout plan and a region, then the URL approval), and a form answered with the wrong
//! type failing before it is sent.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde_json::json;
use typemcp_client::typemcp_core::protocol::CompletionReference;
use typemcp_client::{
    Asked, Client, ClientError, Era, EraChoice, Reply, Scripted, ToolResultExt, Wires,
};
use typemcp_server::ElicitForm;

use crate::common::assert_refs_resolve;

/// The example's `Confirm`, as a test writes it.
#[derive(ElicitForm, Serialize)]
struct Confirm {
    ok: bool,
}

/// The example's `Rollout`: the same fields (its strategy as the option's value).
#[derive(ElicitForm, Serialize)]
struct Rollout {
    strategy: String,
    replicas: u8,
    reason: Option<String>,
}

/// The one-field form a `OneOf<String>` question under `region` is.
#[derive(ElicitForm, Serialize)]
struct Region {
    region: String,
}

/// `booking`'s round 1 form.
#[derive(ElicitForm, Serialize)]
struct Meeting {
    title: String,
    attendees: u8,
}

/// `booking`'s round 2 form (the rooms that fit).
#[derive(ElicitForm, Serialize)]
struct Room {
    room: String,
}

/// The example `name`, started over stdio and connected in `era`, answering with `script`.
async fn start(name: &str, era: EraChoice, script: Scripted) -> Client {
    let mut command = tokio::process::Command::new(crate::common::example_binary(name));
    command.stderr(std::process::Stdio::null());
    Client::builder()
        .era(era)
        .answers(script)
        .spawn(command)
        .await
        .unwrap()
}

pub(crate) fn production_deploy() -> Scripted {
    Scripted::new()
        .reply("confirm", Reply::accept(&Confirm { ok: true }))
        .reply("rollout", rollout())
        .reply("region", region("us-east-1"))
        .reply("approval", Reply::visited())
}

fn rollout() -> Reply {
    Reply::accept(&Rollout {
        strategy: "rolling".into(),
        replicas: 3,
        reason: Some("release 42".into()),
    })
}

fn region(region: &str) -> Reply {
    Reply::accept(&Region {
        region: region.into(),
    })
}

#[tokio::test]
async fn deploy_refuses_a_rollout_answered_with_the_wrong_form_type() {
    let script = Scripted::new()
        .reply("confirm", Reply::accept(&Confirm { ok: true }))
        .reply("rollout", Reply::accept(&Confirm { ok: true }))
        .reply("region", region("eu-west-1"));
    let client = start("deploy", EraChoice::Automatic, script).await;
    let error = client
        .call_tool("deploy", json!({"target": "staging"}))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, ClientError::Unanswered { question, reason } if question == "rollout" && reason.contains("Confirm")),
        "{error:?}"
    );
}

/// One call each example server answers, with what its answer says.
struct Probe {
    example: &'static str,
    tool: &'static str,
    arguments: fn() -> serde_json::Value,
    says: &'static str,
    /// Answers to what the call asks.
    script: fn() -> Scripted,
}

const PROBES: [Probe; 6] = [
    Probe {
        example: "quickstart",
        tool: "add",
        arguments: || json!({"a": 2, "b": 3}),
        says: "5",
        script: Scripted::new,
    },
    Probe {
        example: "booking",
        tool: "list_rooms",
        arguments: || json!({}),
        says: "\"seats\":16",
        script: Scripted::new,
    },
    Probe {
        example: "deploy",
        tool: "deploy",
        arguments: || json!({"target": "production"}),
        says: "Deployed",
        script: production_deploy,
    },
    Probe {
        example: "layered",
        tool: "echo",
        arguments: || json!({"text": "layers all the way"}),
        says: "layers all the way",
        script: Scripted::new,
    },
    Probe {
        example: "long_task",
        tool: "export_table",
        arguments: || json!({"table": "users"}),
        says: "users",
        script: || {
            let keep = serde_json::Map::from_iter([("anonymize".to_owned(), json!(false))]);
            Scripted::new().otherwise(Reply::accept_content(keep))
        },
    },
    Probe {
        example: crate::common::FIXTURE,
        tool: "test_simple_text",
        arguments: || json!({}),
        says: "This is a simple text response",
        script: Scripted::new,
    },
];

/// The tool names `client` lists, and the text of the probe's call.
async fn probe(client: &Client, probe: &Probe) -> (Vec<String>, String) {
    let tools = client.list_tools().await.unwrap();
    let names = tools.into_iter().map(|tool| tool.name).collect();
    let answer = client
        .call_tool(probe.tool, (probe.arguments)())
        .await
        .unwrap_or_else(|error| panic!("{}: {}: {error}", probe.example, probe.tool));
    assert!(!answer.is_tool_error(), "{}: {answer:?}", probe.example);
    (names, answer.text())
}

#[tokio::test]
async fn every_example_server_answers_the_client_over_stdio_and_http_in_both_eras() {
    // `skills` has no tool: `the_skills_example_serves_its_folder_…` covers it.
    let covered: Vec<&str> = PROBES.iter().map(|probe| probe.example).collect();
    let servers: Vec<&str> = crate::common::EXAMPLE_SERVERS
        .iter()
        .map(|e| e.name)
        .filter(|name| *name != "skills")
        .collect();
    assert_eq!(
        covered, servers,
        "every example server with tools has a probe"
    );
    for probe_of in &PROBES {
        let example = crate::common::ExampleServer::named(probe_of.example);
        let http = example.http();
        let mut listings = Vec::new();
        for (choice, era) in [
            (EraChoice::Automatic, Era::Modern),
            (EraChoice::Session, Era::Session),
        ] {
            let mut command =
                tokio::process::Command::new(crate::common::example_binary(example.name));
            command
                .args(example.stdio_args)
                .stderr(std::process::Stdio::null());
            let over_stdio = Client::builder()
                .era(choice)
                .answers((probe_of.script)())
                .spawn(command)
                .await
                .unwrap();
            let over_http = Client::builder()
                .era(choice)
                .answers((probe_of.script)())
                .connect_http(&http.url())
                .await
                .unwrap();
            for (wire, client) in [("stdio", over_stdio), ("http", over_http)] {
                assert_eq!(client.era(), era, "{} over {wire}", example.name);
                let (names, text) = probe(&client, probe_of).await;
                assert!(
                    text.contains(probe_of.says),
                    "{} over {wire} in {era:?}: {text}",
                    example.name
                );
                listings.push(names);
                client.close().await.unwrap();
            }
        }
        assert!(
            listings.windows(2).all(|pair| pair[0] == pair[1]),
            "{}: the same tools on every wire and era: {listings:?}",
            example.name
        );
    }
}

/// `long_task` over stdio with the tasks extension declared, its stderr in `log`.
async fn long_task_with_tasks(log: &std::path::Path, script: Scripted) -> Client {
    let mut command = tokio::process::Command::new(crate::common::example_binary("long_task"));
    command.stderr(std::fs::File::create(log).unwrap());
    Client::builder()
        .tasks()
        .answers(script)
        .spawn(command)
        .await
        .unwrap()
}

/// `long_task`'s export on every wire, in both eras, each time from a client declaring the
/// tasks extension and from one that does not. With it (2026-07-28) the call becomes a task,
/// followed to its end, and the question it parks on halfway is answered through the task,
/// keyed by round (`1.choice`); without it, the same question comes as an `input_required`
/// round (`choice`), or pushed in a 2025-11-25 session. The answer shapes the result.
#[tokio::test]
async fn long_task_exports_as_a_task_or_in_rounds_everywhere() {
    const STEP: [&str; 2] = ["--step-ms", "40"];
    let example = crate::common::ExampleServer::named("long_task");
    let http = example.with_args(STEP).http();
    let wires = Wires::new()
        .stdio(|| {
            let mut command =
                tokio::process::Command::new(crate::common::example_binary("long_task"));
            command.args(STEP).stderr(std::process::Stdio::null());
            command
        })
        .http(http.url());
    let anonymize = |yes: bool| {
        let content = serde_json::Map::from_iter([("anonymize".to_owned(), json!(yes))]);
        Reply::accept_content(content)
    };
    for tasks in [true, false] {
        let builder = || {
            let builder = Client::builder();
            if tasks { builder.tasks() } else { builder }
        };
        let script = || Scripted::new().otherwise(anonymize(tasks));
        with_script_on(&wires, builder, script, async |client, run, script| {
            let table = if tasks { "users" } else { "orders" };
            let done = client
                .call_tool("export_table", json!({"table": table}))
                .await
                .unwrap();
            let expected = if tasks {
                "Exported 10000 rows of users to users.csv (e-mail addresses anonymized)."
            } else {
                "Exported 10000 rows of orders to orders.csv."
            };
            assert_eq!(done.text(), expected, "{run}, tasks: {tasks}");
            let asked = script.asked();
            let keys: Vec<Option<&str>> = asked.iter().map(|q| q.key.as_deref()).collect();
            let key = match (run.era, tasks) {
                (Era::Modern, true) => Some("1.choice"),
                (Era::Modern, false) => Some("choice"),
                _ => None,
            };
            assert_eq!(keys, [key], "{run}, tasks: {tasks}");
            let message = asked[0].message().unwrap_or_default();
            assert!(
                message.contains("Anonymize e-mail addresses"),
                "{run}: {message}"
            );
        })
        .await;
    }
}

#[tokio::test]
async fn a_task_whose_call_is_dropped_is_cancelled_on_the_server() {
    let log = crate::common::out_dir("client-examples").join("long_task-dropped.log");
    let client = long_task_with_tasks(&log, Scripted::new()).await;
    let call = client.call_tool("export_table", json!({"table": "orders"}));
    // The first half takes 500 ms: give up in the middle of it.
    let gave_up = tokio::time::timeout(std::time::Duration::from_millis(300), call).await;
    assert!(
        gave_up.is_err(),
        "the export finished before the client gave up"
    );
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let stderr = std::fs::read_to_string(&log).unwrap_or_default();
        if stderr.contains("export cancelled: orders") {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the task was not cancelled:\n{stderr}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// One test body over every wire the conformance server serves (in this process, as a child
/// over stdio, over HTTP), each in both eras: six runs of a plain call and of a form the
/// server asks for (an `input_required` round, or a question pushed to a 2025-11-25 session).
#[tokio::test]
async fn one_body_runs_over_every_wire_in_both_eras() {
    let http = crate::common::ExampleServer::named(crate::common::FIXTURE).http();
    let wires = Wires::new()
        .in_process(|| {
            let server = crate::fixture::server().unwrap();
            let (client_end, server_end) = tokio::io::duplex(64 * 1024);
            let (read, write) = tokio::io::split(server_end);
            tokio::spawn(server.serve_io(read, write));
            tokio::io::split(client_end)
        })
        .stdio(|| {
            let mut command =
                tokio::process::Command::new(crate::common::example_binary(crate::common::FIXTURE));
            command.arg("--stdio").stderr(std::process::Stdio::null());
            command
        })
        .http(http.url());
    let runs = std::sync::Mutex::new(Vec::new());
    let user = serde_json::Map::from_iter([
        ("username".to_owned(), json!("ada")),
        ("email".to_owned(), json!("ada@example.com")),
    ]);
    wires
        .run(
            || {
                Client::builder()
                    .answers(Scripted::new().otherwise(Reply::accept_content(user.clone())))
            },
            async |client, run| {
                let text = client
                    .call_tool("test_simple_text", json!({}))
                    .await
                    .unwrap();
                assert!(text.text().contains("simple text"), "{run}: {text:?}");
                let asked = client
                    .call_tool("test_elicitation", json!({"message": "Who are you?"}))
                    .await
                    .unwrap_or_else(|error| panic!("{run}: {error}"));
                assert!(asked.text().contains("ada@example.com"), "{run}: {asked:?}");
                runs.lock().unwrap().push(run.to_string());
            },
        )
        .await
        .unwrap();
    assert_eq!(
        *runs.lock().unwrap(),
        [
            "in-process, 2026-07-28",
            "in-process, 2025-11-25",
            "stdio, 2026-07-28",
            "stdio, 2025-11-25",
            "HTTP, 2026-07-28",
            "HTTP, 2025-11-25",
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// Each example as its users see it, over stdio and HTTP, in both eras

/// The stdio and HTTP wires of the example `name` (the HTTP server lives as long as the guard).
fn wires_of(name: &'static str) -> (Wires, crate::common::HttpServer) {
    let example = crate::common::ExampleServer::named(name);
    let http = example.http();
    let wires = Wires::new()
        .stdio(move || {
            let mut command =
                tokio::process::Command::new(crate::common::example_binary(example.name));
            command
                .args(example.stdio_args)
                .stderr(std::process::Stdio::null());
            command
        })
        .http(http.url());
    (wires, http)
}

/// What every listing must hold: named, unique, described tools and prompts with object input
/// schemas whose `$ref`s resolve inside them, and the lists the server does not declare
/// refused as `Method not found`. The names of the tools, prompts, resources and templates.
async fn listing(client: &Client, run: typemcp_client::Run) -> [Vec<String>; 4] {
    let capabilities = client.server().capabilities.clone();
    let tools = client.list_tools().await.unwrap();
    for tool in &tools {
        let described = tool
            .description
            .as_deref()
            .is_some_and(|d| !d.trim().is_empty());
        assert!(described, "{run}: {} has no description", tool.name);
        assert_eq!(tool.input_schema["type"], "object", "{run}: {}", tool.name);
        let schemas = std::iter::once(&tool.input_schema).chain(tool.output_schema.as_ref());
        for schema in schemas {
            let schema = serde_json::Value::Object(schema.clone());
            assert_refs_resolve(&schema, &schema, &format!("{run}: {}", tool.name));
        }
    }
    let prompts = match capabilities.prompts {
        Some(_) => client.list_prompts().await.unwrap(),
        None => {
            let refused = client.list_prompts().await.unwrap_err();
            assert_eq!(refused.code(), Some(-32601), "{run}");
            Vec::new()
        }
    };
    for prompt in &prompts {
        let described = prompt
            .description
            .as_deref()
            .is_some_and(|d| !d.trim().is_empty());
        assert!(described, "{run}: {} has no description", prompt.name);
    }
    let (resources, templates) = match capabilities.resources {
        Some(_) => (
            client.list_resources().await.unwrap(),
            client.list_resource_templates().await.unwrap(),
        ),
        None => {
            let refused = client.list_resources().await.unwrap_err();
            assert_eq!(refused.code(), Some(-32601), "{run}: resources/list");
            let refused = client.list_resource_templates().await.unwrap_err();
            assert_eq!(
                refused.code(),
                Some(-32601),
                "{run}: resources/templates/list"
            );
            Default::default()
        }
    };
    let names = [
        tools.iter().map(|t| t.name.clone()).collect::<Vec<_>>(),
        prompts.iter().map(|p| p.name.clone()).collect(),
        resources.iter().map(|r| r.name.clone()).collect(),
        templates.iter().map(|t| t.uri_template.clone()).collect(),
    ];
    for list in &names {
        let unique: std::collections::BTreeSet<&String> = list.iter().collect();
        assert_eq!(unique.len(), list.len(), "{run}: a name twice in {list:?}");
        assert!(list.iter().all(|name| !name.is_empty()), "{run}: {list:?}");
    }
    names
}

/// The JSON of a result, for reading its content.
fn json_of(result: &impl Serialize) -> serde_json::Value {
    serde_json::to_value(result).unwrap()
}

/// Runs `body` over `wires` (every wire, both eras) with a client answering with a fresh
/// `script()`, which the body gets too (to read what it was asked).
async fn with_script(
    wires: &Wires,
    script: impl Fn() -> Scripted,
    body: impl AsyncFn(Client, typemcp_client::Run, Arc<Scripted>),
) {
    with_script_on(wires, Client::builder, script, body).await;
}

/// [`with_script`], with clients built from `builder()`.
async fn with_script_on(
    wires: &Wires,
    builder: impl Fn() -> typemcp_client::ClientBuilder,
    script: impl Fn() -> Scripted,
    body: impl AsyncFn(Client, typemcp_client::Run, Arc<Scripted>),
) {
    let current = Mutex::new(None);
    let builder = || {
        let shared = Arc::new(script());
        *current.lock().unwrap() = Some(Arc::clone(&shared));
        builder().answers(shared)
    };
    let run = async |client, run| {
        let script = current.lock().unwrap().take().unwrap();
        body(client, run, script).await;
    };
    wires.run(builder, run).await.unwrap();
}

/// What `script` was asked: round, key and message of each question (a 2025-11-25 server
/// pushes its questions, without round or key).
fn questions(script: &Scripted) -> Vec<(Option<u32>, Option<String>, String)> {
    let asked = script.asked().into_iter();
    let line = |q: Asked| {
        (
            q.round,
            q.key.clone(),
            q.message().unwrap_or_default().to_owned(),
        )
    };
    asked.map(line).collect()
}

const REGIONS: [(&str, &str); 3] = [
    ("eu-west-1", "Europe (Ireland)"),
    ("us-east-1", "US East (Virginia)"),
    ("ap-south-1", "Asia Pacific (Mumbai)"),
];

#[tokio::test]
async fn deploy_lists_its_tools_and_runs_its_rounds_everywhere() {
    let (wires, _http) = wires_of("deploy");
    with_script(&wires, Scripted::new, async |client, run, _| {
        let [tools, ..] = listing(&client, run).await;
        assert_eq!(tools, ["deploy", "list_regions"], "{run}");
        let listed = client.list_tools().await.unwrap();
        let annotations = |i: usize| listed[i].annotations.clone().unwrap();
        assert_eq!(annotations(0).destructive_hint, Some(true), "{run}");
        assert_eq!(
            listed[0].input_schema["required"],
            json!(["target"]),
            "{run}"
        );
        assert_eq!(annotations(1).read_only_hint, Some(true), "{run}");
        // A list as structured output on the 2026-07-28 wire; text only for a 2025-11-25
        // session (whose clients take only an object there).
        let staging = json!([{"id": "eu-west-1", "label": "Europe (Ireland)"}]);
        let regions = client
            .call_tool("list_regions", json!({"target": "staging"}))
            .await
            .unwrap();
        assert_eq!(regions.text(), staging.to_string(), "{run}");
        assert_eq!(regions.content.len(), 1, "{run}: one text block");
        let output = listed[1]
            .output_schema
            .as_ref()
            .map(|schema| &schema["type"]);
        if run.era == Era::Modern {
            assert_eq!(output, Some(&json!("array")), "{run}");
            let structured = regions.structured::<serde_json::Value>().unwrap();
            assert_eq!(structured, staging, "{run}");
        } else {
            assert_eq!(output, None, "{run}");
            assert_eq!(regions.structured_content, None, "{run}: text only");
        }
        // A target outside the enum is a tool error naming the argument.
        let moon = client
            .call_tool("deploy", json!({"target": "moon"}))
            .await
            .unwrap();
        assert!(
            moon.is_tool_error() && moon.text().contains("target"),
            "{run}: {moon:?}"
        );
    })
    .await;

    // Production: a confirmation, then a derived form and options computed for the call
    // together (a region not offered is asked again, saying why), then a URL-mode approval.
    let script = || {
        let confirmed = Scripted::new().reply("confirm", Reply::accept(&Confirm { ok: true }));
        let rollout_twice = confirmed
            .reply("rollout", rollout())
            .reply("rollout", rollout());
        let mars = rollout_twice.reply(
            "region",
            Reply::accept_unchecked(&Region {
                region: "mars".into(),
            }),
        );
        mars.reply("region", region("us-east-1"))
            .reply("approval", Reply::visited())
    };
    with_script(&wires, script, async |client, run, script| {
        let done = client
            .call_tool("deploy", json!({"target": "production"}))
            .await
            .unwrap();
        let text = done.text();
        assert!(
            text.starts_with(
                "Deployed to Production in us-east-1 with 3 replicas, one replica at a time"
            ) && text.contains("release 42")
                && text.contains("change CHG-")
                && text.ends_with(" approved."),
            "{run}: {text}"
        );
        let rollout = "How should it roll out?";
        let reasked = "Which region?\n\nThe previous answer was not valid (`region`: \"mars\" is \
                       not one of Europe (Ireland), US East (Virginia), Asia Pacific (Mumbai)). \
                       Please answer again.";
        let approve = "Approve the deploy in the change-management page.";
        let expected = [
            (1, "confirm", "Deploy to Production?"),
            (2, "rollout", rollout),
            (2, "region", "Which region?"),
            (3, "rollout", rollout),
            (3, "region", reasked),
            (4, "approval", approve),
        ];
        let expected: Vec<_> = expected
            .into_iter()
            .map(|(round, key, message)| match run.era {
                Era::Modern => (Some(round), Some(key.to_owned()), message.to_owned()),
                _ => (None, None, message.to_owned()),
            })
            .collect();
        assert_eq!(questions(&script), expected, "{run}");
        let asked = script.asked();
        let fields: Vec<&String> = asked[1].form().unwrap().properties.keys().collect();
        assert_eq!(fields, ["strategy", "replicas", "reason"], "{run}");
        let options = &json_of(asked[2].form().unwrap())["properties"]["region"]["oneOf"];
        let offered = REGIONS.map(|(id, title)| json!({"const": id, "title": title}));
        assert_eq!(options, &json!(offered), "{run}");
        let url = asked[5].url().unwrap();
        assert!(
            url.starts_with("https://changes.example.com/requests/CHG-"),
            "{run}: {url}"
        );
        assert!(asked[5].form().is_none(), "{run}");
        assert_eq!(script.unused(), 0, "{run}");
    })
    .await;

    // Declining the confirmation ends the flow.
    let declines = || Scripted::new().reply("confirm", Reply::decline());
    with_script(&wires, declines, async |client, run, _| {
        let done = client
            .call_tool("deploy", json!({"target": "production"}))
            .await
            .unwrap();
        assert_eq!(done.text(), "Deploy declined.", "{run}");
    })
    .await;

    // Staging runs in the one region it offers and needs no approval page.
    let staging = || {
        let script = Scripted::new().reply("confirm", Reply::accept(&Confirm { ok: true }));
        script
            .reply("rollout", rollout())
            .reply("region", region("eu-west-1"))
    };
    with_script(&wires, staging, async |client, run, script| {
        let done = client
            .call_tool("deploy", json!({"target": "staging"}))
            .await
            .unwrap();
        assert!(
            done.text()
                .starts_with("Deployed to Staging in eu-west-1 with 3 replicas"),
            "{run}: {done:?}"
        );
        let options = json_of(script.asked()[2].form().unwrap());
        let offered = options["properties"]["region"]["oneOf"]
            .as_array()
            .map(Vec::len);
        assert_eq!(offered, Some(1), "{run}");
    })
    .await;

    // A client without URL mode is refused before a change request is opened: the handler
    // checks first (-32021, naming the capability).
    let form_only = || {
        let capabilities = serde_json::from_value(json!({"elicitation": {"form": {}}}));
        production_deploy().declaring(capabilities.unwrap())
    };
    with_script(&wires, form_only, async |client, run, _| {
        let refused = client
            .call_tool("deploy", json!({"target": "production"}))
            .await
            .unwrap_err();
        assert_eq!(refused.code(), Some(-32021), "{run}: {refused}");
        let ClientError::Server(error) = refused else {
            unreachable!()
        };
        let needed = error.data.unwrap()["requiredCapabilities"].clone();
        assert_eq!(needed, json!({"elicitation": {"url": {}}}), "{run}");
    })
    .await;
}

/// `booking` on every wire in both eras: its listing, every ending of `book` (confirmed after
/// a room that was not offered is asked again, declined, cancelled at either question, no
/// room that fits), the prompt and the resource. The server books once per confirmed run.
#[tokio::test]
async fn booking_runs_every_ending_everywhere() {
    use crate::common::booking::{
        BOOKED, CANCELLED, CHOOSE, CONFIRM, DECLINED, DESCRIBE, INVITATION, OFFERED,
        book_arguments, bookings, north_rooms,
    };
    let (wires, http) = wires_of("booking");
    let meeting = |attendees| {
        let title = "Design review".to_owned();
        Reply::accept(&Meeting { title, attendees })
    };
    let room = |room: &str| Reply::accept(&Room { room: room.into() });
    let yes = || Reply::accept(&Confirm { ok: true });
    let book = async |client: &Client| {
        let done = client.call_tool("book", book_arguments()).await;
        done.unwrap().text()
    };
    with_script(&wires, Scripted::new, async |client, run, _| {
        let [tools, prompts, _, templates] = listing(&client, run).await;
        assert_eq!(tools, ["list_rooms", "book"], "{run}");
        assert_eq!(
            (prompts, templates),
            (
                vec!["invitation".to_owned()],
                vec!["rooms://{id}".to_owned()]
            ),
            "{run}"
        );
        let listed = client.list_tools().await.unwrap();
        assert_eq!(
            listed[1].input_schema["required"],
            json!(["building"]),
            "{run}"
        );
        assert!(
            listed[1].input_schema["properties"].get("needs").is_some(),
            "{run}"
        );
        let rooms = client
            .call_tool("list_rooms", json!({"building": "north"}))
            .await
            .unwrap();
        let text: serde_json::Value = serde_json::from_str(&rooms.text()).unwrap();
        assert_eq!(text, north_rooms(), "{run}");
        if run.era == Era::Modern {
            let output = listed[0]
                .output_schema
                .as_ref()
                .map(|schema| &schema["type"]);
            assert_eq!(output, Some(&json!("array")), "{run}");
            let structured = rooms.structured::<serde_json::Value>().unwrap();
            assert_eq!(structured, north_rooms(), "{run}");
        }

        let arguments = json!({"room": "north-2", "topic": "the roadmap"});
        let prompt = client.get_prompt("invitation", arguments).await.unwrap();
        let text = &json_of(&prompt)["messages"][0]["content"]["text"];
        assert_eq!(text, INVITATION, "{run}");
        let read = json_of(&client.read_resource("rooms://north-2").await.unwrap());
        let contents = &read["contents"][0];
        assert_eq!(contents["uri"], "rooms://north-2", "{run}");
        assert_eq!(contents["mimeType"], "application/json", "{run}");
        let described: serde_json::Value =
            serde_json::from_str(contents["text"].as_str().unwrap()).unwrap();
        assert_eq!(described, north_rooms()[1], "{run}");
        let missing = client.read_resource("rooms://east-9").await.unwrap_err();
        assert_eq!(missing.code(), Some(-32602), "{run}: {missing}");
        assert!(
            missing.to_string().contains("rooms://east-9"),
            "{run}: {missing}"
        );
    })
    .await;

    // Confirmed, after a room that was not offered is asked again: its message says why,
    // naming the rooms by the labels the question shows.
    let confirmed = || {
        let south = Reply::accept_unchecked(&Room {
            room: "south-2".into(),
        });
        let asks = Scripted::new()
            .reply("meeting", meeting(8))
            .reply("room", south);
        asks.reply("room", room("north-2")).reply("confirm", yes())
    };
    with_script(&wires, confirmed, async |client, run, script| {
        assert_eq!(book(&client).await, BOOKED, "{run}");
        let asked = script.asked();
        let messages: Vec<&str> = asked.iter().map(|q| q.message().unwrap()).collect();
        let why = "\"south-2\" is not one of Borealis (10 seats), Polaris (16 seats)";
        assert_eq!(messages.len(), 4, "{run}: {messages:?}");
        assert_eq!(
            [messages[0], messages[1], messages[3]],
            [DESCRIBE, CHOOSE, CONFIRM],
            "{run}"
        );
        assert!(
            messages[2].starts_with(CHOOSE) && messages[2].contains(why),
            "{run}: {messages:?}"
        );
        for question in &asked[1..3] {
            let options = &json_of(question.form().unwrap())["properties"]["room"]["oneOf"];
            let ids: Vec<&str> = options
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o["const"].as_str().unwrap())
                .collect();
            assert_eq!(ids, OFFERED, "{run}: computed for the call");
        }
    })
    .await;
    assert_eq!(
        bookings(&http.output()),
        2,
        "one booking per era over HTTP: {}",
        http.output()
    );

    // Declined at the confirmation, cancelled at the room question or at the first one, and
    // a meeting no room fits: no room question at all.
    /// A script, the text the call ends with, and the questions asked.
    type Ending = (fn() -> Scripted, &'static str, &'static [&'static str]);
    let endings: [Ending; 4] = [
        (
            || {
                let meeting = Reply::accept(&Meeting {
                    title: "Design review".into(),
                    attendees: 8,
                });
                let chosen = Scripted::new().reply("meeting", meeting).reply(
                    "room",
                    Reply::accept(&Room {
                        room: "north-3".into(),
                    }),
                );
                chosen.reply("confirm", Reply::decline())
            },
            DECLINED,
            &[
                DESCRIBE,
                CHOOSE,
                "Book Polaris for \"Design review\" (8 people)?",
            ],
        ),
        (
            || {
                let meeting = Reply::accept(&Meeting {
                    title: "Design review".into(),
                    attendees: 8,
                });
                Scripted::new()
                    .reply("meeting", meeting)
                    .reply("room", Reply::cancel())
            },
            CANCELLED,
            &[DESCRIBE, CHOOSE],
        ),
        (
            || Scripted::new().reply("meeting", Reply::cancel()),
            CANCELLED,
            &[DESCRIBE],
        ),
        (
            || {
                let crowd = Reply::accept(&Meeting {
                    title: "All hands".into(),
                    attendees: 40,
                });
                Scripted::new().reply("meeting", crowd)
            },
            "No room in the North building fits 40 people.",
            &[DESCRIBE],
        ),
    ];
    for (script, ending, questions) in endings {
        with_script(&wires, script, async |client, run, script| {
            assert_eq!(book(&client).await, ending, "{run}");
            let asked = script.asked();
            let messages: Vec<&str> = asked.iter().map(|q| q.message().unwrap()).collect();
            assert_eq!(messages, questions, "{run}");
            assert_eq!(script.unused(), 0, "{run}");
        })
        .await;
    }
    assert_eq!(
        bookings(&http.output()),
        2,
        "nothing more booked: {}",
        http.output()
    );
}

#[tokio::test]
async fn quickstart_serves_its_tool_prompt_and_template_everywhere() {
    let (wires, _http) = wires_of("quickstart");
    wires
        .run(Client::builder, async |client, run| {
            let [tools, prompts, resources, templates] = listing(&client, run).await;
            assert_eq!(tools, ["add"], "{run}");
            assert_eq!(prompts, ["review"], "{run}");
            assert!(resources.is_empty(), "{run}");
            assert_eq!(templates, ["notes://{id}"], "{run}");
            let add = client.list_tools().await.unwrap().remove(0);
            assert_eq!(
                add.description.as_deref(),
                Some("Add two numbers."),
                "{run}"
            );
            let schema = &add.input_schema;
            assert_eq!(schema["required"], json!(["a", "b"]), "{run}");
            for (arg, description) in [("a", "The first addend."), ("b", "The second addend.")] {
                assert_eq!(schema["properties"][arg]["type"], "integer", "{run}");
                assert_eq!(
                    schema["properties"][arg]["description"], description,
                    "{run}"
                );
            }
            assert_eq!(
                add.annotations.and_then(|a| a.read_only_hint),
                Some(true),
                "{run}"
            );

            let sum = client
                .call_tool("add", json!({"a": 2, "b": 3}))
                .await
                .unwrap();
            assert_eq!(sum.text(), "5", "{run}");
            let refused = client
                .call_tool("add", json!({"a": "two", "b": 3}))
                .await
                .unwrap();
            assert!(refused.is_tool_error(), "{run}: {refused:?}");
            assert!(
                refused.text().contains("`a`"),
                "{run}: names `a`: {refused:?}"
            );

            let code = "fn main() {}";
            let prompt = client
                .get_prompt("review", json!({"code": code}))
                .await
                .unwrap();
            assert_eq!(
                json_of(&prompt)["messages"][0]["content"]["text"],
                format!("Review this code for bugs:\n\n{code}"),
                "{run}"
            );
            let read = json_of(&client.read_resource("notes://7").await.unwrap());
            let contents = &read["contents"][0];
            assert_eq!(contents["uri"], "notes://7", "{run}");
            assert_eq!(contents["mimeType"], "text/plain", "{run}");
            assert_eq!(contents["text"], "Note number 7.", "{run}");
        })
        .await
        .unwrap();
}

#[tokio::test]
async fn conformance_server_serves_what_it_registers_everywhere() {
    let (wires, _http) = wires_of(crate::common::FIXTURE);
    wires
        .run(Client::builder, async |client, run| {
            let [tools, prompts, resources, templates] = listing(&client, run).await;
            assert_eq!(tools.len(), 35, "{run}: {tools:?}");
            assert_eq!(
                tools[0], "test_simple_text",
                "registration order: {tools:?}"
            );
            assert!(
                tools.contains(&"json_schema_2020_12_tool".to_owned()),
                "{tools:?}"
            );
            let expected = [
                "test_simple_prompt",
                "test_prompt_with_arguments",
                "test_prompt_with_embedded_resource",
                "test_prompt_with_image",
                "test_input_required_result_prompt",
            ];
            assert_eq!(prompts, expected, "{run}");
            let expected = [
                "static-text",
                "static-binary",
                "watched-resource",
                "confirmed-secret",
                // The SKILL.md of each skill it serves (the skills example's folder).
                "refunds",
                "pdf-processing",
            ];
            assert_eq!(resources, expected, "{run}");
            assert_eq!(templates, ["test://template/{id}/data"], "{run}");
            let listed = client.list_prompts().await.unwrap();
            let with_arguments = listed
                .iter()
                .find(|p| p.name == "test_prompt_with_arguments");
            let arguments = with_arguments
                .unwrap()
                .arguments
                .clone()
                .unwrap_or_default();
            let names: Vec<&str> = arguments.iter().map(|a| a.name.as_str()).collect();
            assert_eq!(names, ["arg1", "arg2"], "{run}");
            assert!(arguments.iter().all(|a| a.required == Some(true)), "{run}");

            let text = client
                .call_tool("test_simple_text", json!({}))
                .await
                .unwrap();
            assert_eq!(
                text.text(),
                "This is a simple text response for testing.",
                "{run}"
            );
            let prompt = client
                .get_prompt("test_simple_prompt", json!({}))
                .await
                .unwrap();
            let message = &json_of(&prompt)["messages"][0];
            assert_eq!(message["role"], "user", "{run}");
            let text = &message["content"]["text"];
            assert_eq!(text, "This is a simple prompt for testing.", "{run}");
            let read = json_of(&client.read_resource("test://static-text").await.unwrap());
            let contents = &read["contents"][0];
            assert_eq!(contents["uri"], "test://static-text", "{run}");
            assert_eq!(contents["mimeType"], "text/plain", "{run}");
            let text = &contents["text"];
            assert_eq!(
                text, "This is the content of the static text resource.",
                "{run}"
            );
            let read = json_of(
                &client
                    .read_resource("test://template/42/data")
                    .await
                    .unwrap(),
            );
            let contents = &read["contents"][0];
            assert_eq!(contents["uri"], "test://template/42/data", "{run}");
            assert_eq!(contents["mimeType"], "application/json", "{run}: {read}");
            let data: serde_json::Value =
                serde_json::from_str(contents["text"].as_str().unwrap()).unwrap();
            let fields = (&data["id"], &data["data"]);
            assert_eq!(fields, (&json!("42"), &json!("Data for ID: 42")), "{run}");

            let arguments = json!({"arg1": "alpha", "arg2": "beta"});
            let prompt = client.get_prompt("test_prompt_with_arguments", arguments);
            let prompt = json_of(&prompt.await.unwrap());
            let text = &prompt["messages"][0]["content"]["text"];
            assert_eq!(
                text, "Prompt with arguments: arg1='alpha', arg2='beta'",
                "{run}"
            );
            let reference = CompletionReference::Prompt {
                name: "test_prompt_with_arguments".to_owned(),
                title: None,
            };
            let completed = client
                .complete(reference, "arg1", "pa", None)
                .await
                .unwrap();
            let values = &completed.completion.values;
            let all_match = values.iter().all(|value| value.starts_with("pa"));
            assert!(!values.is_empty() && all_match, "{run}: {values:?}");
        })
        .await
        .unwrap();
}

#[tokio::test]
async fn layered_times_out_its_slow_tool_and_audits_every_request_everywhere() {
    let (wires, http) = wires_of("layered");
    wires
        .run(Client::builder, async |client, run| {
            let [tools, ..] = listing(&client, run).await;
            assert_eq!(tools, ["echo", "sleep"], "{run}");
            let slept = client.call_tool("sleep", json!({"ms": 10})).await.unwrap();
            assert_eq!(slept.text(), "slept 10 ms", "{run}");
            let started = std::time::Instant::now();
            let timed_out = client
                .call_tool("sleep", json!({"ms": 5000}))
                .await
                .unwrap_err();
            assert_eq!(timed_out.code(), Some(-32603), "{run}: {timed_out}");
            assert!(
                timed_out.to_string().contains("request timed out"),
                "{run}: {timed_out}"
            );
            let elapsed = started.elapsed();
            assert!(
                elapsed < std::time::Duration::from_secs(4),
                "{run}: answered after {elapsed:?}"
            );
            let echoed = client
                .call_tool("echo", json!({"text": "still here"}))
                .await
                .unwrap();
            assert_eq!(echoed.text(), "still here", "{run}");
        })
        .await
        .unwrap();
    // Both eras passed through the same layers over HTTP, a session from its `initialize` on.
    let log = http.output();
    for line in [
        "audit: initialize",
        "audit: server/discover",
        "audit: tools/list",
        "audit: tools/call tool=sleep",
        "audit: tools/call tool=echo",
    ] {
        assert!(log.contains(line), "{line:?} in the log:\n{log}");
    }
}

/// The skills example, as a host uses it over stdio and HTTP in both eras: both skills
/// listed, `pdf-processing` loaded (its `SKILL.md` verified) and its form notes read and
/// verified, its folders browsed.
#[tokio::test]
async fn the_skills_example_serves_its_folder_over_stdio_and_http_in_both_eras() {
    let example = crate::common::ExampleServer::named("skills");
    let http = example.http();
    let forms = std::fs::read(
        crate::common::root_dir().join("examples/skills/pdf-processing/references/FORMS.md"),
    )
    .unwrap();
    for (choice, era) in [
        (EraChoice::Automatic, Era::Modern),
        (EraChoice::Session, Era::Session),
    ] {
        let mut command = tokio::process::Command::new(crate::common::example_binary("skills"));
        command.stderr(std::process::Stdio::null());
        let over_stdio = Client::builder().era(choice).spawn(command).await.unwrap();
        let over_http = Client::builder()
            .era(choice)
            .connect_http(&http.url())
            .await
            .unwrap();
        for (wire, client) in [("stdio", over_stdio), ("http", over_http)] {
            assert_eq!(client.era(), era, "skills over {wire}");
            let entries = client.list_skills().await.unwrap();
            let names: Vec<_> = entries.iter().filter_map(|e| e.name()).collect();
            assert_eq!(names, ["refunds", "pdf-processing"], "{wire} {era:?}");
            let skill = client.load_skill(&entries[1]).await.unwrap();
            assert!(skill.instructions().contains("references/FORMS.md"));
            assert_eq!(
                skill.read(&client, "references/FORMS.md").await.unwrap(),
                forms,
                "{wire} {era:?}"
            );
            let templates = client
                .read_directory("skill://pdf-processing/templates")
                .await
                .unwrap();
            assert_eq!(
                templates[0].uri,
                "skill://pdf-processing/templates/invoice.md"
            );
            client.close().await.unwrap();
        }
    }
}
