//! Small macros that write the crate's repetitive items: `Debug` impls that show some fields,
//! and builder setters, one line each.

/// Implements `Debug` for a type as `debug_struct` showing the named fields, marked
/// non-exhaustive (the rest, such as handlers, are not shown).
macro_rules! debug_fields {
    ($ty:ident $(, $field:ident)*) => {
        impl ::std::fmt::Debug for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.debug_struct(stringify!($ty))
                    $(.field(stringify!($field), &self.$field))*
                    .finish_non_exhaustive()
            }
        }
    };
}

/// Builder setters, one line each: `pub fn name(arg: Type) |b| body;` defines
/// `#[must_use] pub fn name(self, arg: Type) -> Self`, which runs `body` on the builder `b`
/// and returns it. Doc comments and other attributes go before each line.
macro_rules! setters {
    ($($(#[$attr:meta])* pub fn $name:ident($($arg:ident: $ty:ty),* $(,)?) |$b:ident| $body:expr;)*) => {$(
        $(#[$attr])*
        #[must_use]
        pub fn $name(self $(, $arg: $ty)*) -> Self {
            let mut $b = self;
            $body;
            $b
        }
    )*};
}
