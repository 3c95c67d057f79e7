use typemcp_server::{ElicitForm, FormChoice, elicit_form};

// Each mistake is one error: the items are emitted anyway, so the uses below (and the form
// that asks for `Size`) report nothing more.

#[elicit_form(title = "Sign up")]
struct Signup {
    name: String,
}

#[derive(ElicitForm)]
struct Setting<T> {
    value: T,
}

#[derive(FormChoice)]
enum Size {
    Small,
    Custom(u8),
}

#[derive(ElicitForm)]
struct Order {
    size: Size,
}

fn main() {
    let _ = Signup::requested_schema();
    let _ = Setting::<String>::requested_schema();
    let _ = Order::requested_schema();
    let _ = Size::Small.value();
}
