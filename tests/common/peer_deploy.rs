//! The `deploy` flow as every peer server of the client interop tests serves it
//! (`tests/end_to_end/client_interop.rs`: the TypeScript and Python SDKs; `tests/end_to_end/client_interop_rmcp.rs`:
//! rmcp), driven by `typemcp-client`: one tool `deploy` (argument `target`) asking one form
//! question with a boolean field `ok`, a user ([`Operator`]) who accepts the first question
//! and declines the second, and the checks of the two calls ([`deploy_twice`]).

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value, json};
use typemcp_client::typemcp_core::protocol::{ElicitRequestParams, InputRequest};
use typemcp_client::{
    Answers, Client, ClientBuilder, ClientError, Era, EraChoice, Question, Reply, ToolResultExt,
};

/// One question as the client saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asked {
    /// Its key in an `input_required` result; `None` when the server pushed it.
    pub key: Option<String>,
    /// The round it came in; `None` when pushed.
    pub round: Option<u32>,
    /// The question shown.
    pub message: String,
    /// The form's fields.
    pub fields: Vec<String>,
}

/// A user who answers the forms in turn from a list: `true` accepts with `{ok: true}`,
/// `false` declines. Every question is recorded.
#[derive(Debug)]
pub struct Operator {
    replies: Mutex<VecDeque<bool>>,
    asked: Arc<Mutex<Vec<Asked>>>,
}

impl Answers for Operator {
    fn answer<'a>(
        &'a self,
        question: Question<'a>,
    ) -> Pin<Box<dyn Future<Output = Result<Reply, ClientError>> + Send + 'a>> {
        let message = match question.request {
            InputRequest::Elicitation(ElicitRequestParams::Form { message, .. }) => message.clone(),
            other => format!("not a form: {other:?}"),
        };
        let fields = question
            .form()
            .map(|form| form.properties.keys().cloned().collect())
            .unwrap_or_default();
        self.asked.lock().unwrap().push(Asked {
            key: question.key.map(str::to_owned),
            round: question.round,
            message,
            fields,
        });
        let reply = match self.replies.lock().unwrap().pop_front() {
            Some(true) => {
                let mut content = Map::new();
                content.insert("ok".to_owned(), Value::Bool(true));
                Ok(Reply::accept_content(content))
            }
            Some(false) => Ok(Reply::decline()),
            None => Err(ClientError::Unanswered {
                question: question.name(),
                reason: "the test expected no more questions".to_owned(),
            }),
        };
        Box::pin(std::future::ready(reply))
    }
}

/// A client of `era` whose user accepts the first question and declines the second, and the
/// record of the questions.
pub fn builder(era: EraChoice) -> (ClientBuilder, Arc<Mutex<Vec<Asked>>>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let operator = Operator {
        replies: Mutex::new(VecDeque::from([true, false])),
        asked: Arc::clone(&asked),
    };
    (Client::builder().era(era).answers(operator), asked)
}

/// Lists the tools and runs `deploy` twice on `client` (accepted, then declined); checks the
/// answers and the questions asked.
pub async fn deploy_twice(
    client: &Client,
    expected: Era,
    asked: &Mutex<Vec<Asked>>,
) -> Result<(), String> {
    if client.era() != expected {
        return Err(format!(
            "the connection speaks {:?}, not {expected:?} (server {:?})",
            client.era(),
            client.server()
        ));
    }
    let tools = client
        .list_tools()
        .await
        .map_err(|e| format!("tools/list: {e}"))?;
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
    if names != ["deploy"] {
        return Err(format!("the server lists {names:?}, not [\"deploy\"]"));
    }
    for expected_text in ["Deployed to staging.", "Not deployed."] {
        let result = client
            .call_tool("deploy", json!({"target": "staging"}))
            .await
            .map_err(|e| format!("tools/call deploy ({expected_text:?} expected): {e}"))?;
        if result.is_tool_error() || result.text() != expected_text {
            return Err(format!(
                "deploy answered {:?} (isError {:?}), not {expected_text:?}: {result:?}",
                result.text(),
                result.is_error
            ));
        }
    }
    let asked = asked.lock().unwrap().clone();
    let (key, round) = match expected {
        Era::Modern => (Some("confirm".to_owned()), Some(1)),
        _ => (None, None),
    };
    let one = Asked {
        key,
        round,
        message: "Deploy to staging?".to_owned(),
        fields: vec!["ok".to_owned()],
    };
    if asked != [one.clone(), one] {
        return Err(format!(
            "one question per call, {}, expected; asked {asked:?}",
            match expected {
                Era::Modern => "keyed `confirm` in round 1 of an input_required result",
                _ => "pushed without a key",
            }
        ));
    }
    Ok(())
}
