use typemcp_server::ElicitForm;

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
#[form(crate = ::typemcp_server, crate = ::typemcp_server)]
struct Poll {
    yes: bool,
}

#[derive(ElicitForm)]
struct Vote {
    #[form]
    yes: bool,
    #[form(crate = ::typemcp_server)]
    no: bool,
}

fn main() {}
