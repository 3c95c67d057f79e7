use mcp_server::ElicitForm;

/// On the struct, `#[form]` takes only `crate = path`.
#[derive(ElicitForm)]
#[form(title = "Sign up")]
struct Signup {
    name: String,
}

#[derive(ElicitForm)]
#[form(crate = 42)]
struct Survey {
    answer: String,
}

#[derive(ElicitForm)]
#[form(crate = ::mcp_server, crate = ::mcp_server)]
struct Poll {
    yes: bool,
}

#[derive(ElicitForm)]
struct Vote {
    #[form]
    yes: bool,
    #[form(crate = ::mcp_server)]
    no: bool,
}

fn main() {}
