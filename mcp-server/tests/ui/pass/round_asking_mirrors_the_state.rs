//! `<Enum>Asking` mirrors the state enum: its visibility, its variants (named like the
//! trait's associated types too, or awaiting nothing), their fields (named like what the
//! generated code binds too) and, per awaited key, what that question is asked with; `split`
//! hands back the state and the prompts in question order.

mod flows {
    use typemcp_server::state::{Continuation, OneOf};
    use typemcp_server::ElicitForm;

    /// Confirm.
    #[derive(ElicitForm)]
    pub struct Confirm {
        pub ok: bool,
    }

    /// Where it stands.
    #[derive(serde::Serialize, serde::Deserialize, Clone, Continuation)]
    pub enum Flow {
        #[awaits(confirm: Confirm)]
        Asking { asking: u8 },
        #[awaits(region: OneOf<String>, confirm: Confirm)]
        Answered { answers: String, prompts: u8 },
        Done,
    }
}

use flows::{Flow, FlowAsking};
use typemcp_server::state::{Continuation, Message, OneOf};

fn main() {
    let message = String::from("Sure?");
    let (state, prompts) = Flow::split(FlowAsking::Asking { asking: 1, confirm: (&message).into() });
    assert!(matches!(state, Flow::Asking { asking: 1 }));
    assert_eq!(prompts.len(), 1);

    let asking = FlowAsking::Answered {
        answers: "a".to_owned(),
        prompts: 2,
        region: OneOf::prompt("Where?", ["eu".to_owned(), "us".to_owned()]),
        confirm: Message::new("And go?"),
    };
    let (state, prompts) = Flow::split(asking);
    let keys: Vec<&str> = state.questions().iter().map(|q| q.key).collect();
    assert_eq!(keys, ["region", "confirm"]);
    let texts: Vec<&str> = prompts.iter().map(|p| p.text()).collect();
    assert_eq!(texts, ["Where?", "And go?"]);

    let (state, prompts) = Flow::split(FlowAsking::Done {});
    assert!(matches!(state, Flow::Done) && prompts.is_empty());
}
