//! The operators of HIR expressions, as data (the syntax writes them as
//! tokens): what inference, the constant evaluator and code generation
//! match on.

use slang_syntax::SyntaxKind;

/// A binary operator other than assignment and the comma.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Eq,
    Ne,
    Lt,
    Gt,
    Le,
    Ge,
    /// `&&`
    And,
    /// `||`
    Or,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

impl BinOp {
    /// The operator as written (`operator+` is named after it).
    pub fn text(self) -> &'static str {
        use BinOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Rem => "%",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Gt => ">",
            Le => "<=",
            Ge => ">=",
            And => "&&",
            Or => "||",
            BitAnd => "&",
            BitOr => "|",
            BitXor => "^",
            Shl => "<<",
            Shr => ">>",
        }
    }

    pub(crate) fn from_token(k: SyntaxKind) -> Option<BinOp> {
        use SyntaxKind::*;
        Some(match k {
            PLUS => BinOp::Add,
            MINUS => BinOp::Sub,
            STAR => BinOp::Mul,
            SLASH => BinOp::Div,
            PERCENT => BinOp::Rem,
            EQ2 => BinOp::Eq,
            NEQ => BinOp::Ne,
            L_ANGLE => BinOp::Lt,
            R_ANGLE => BinOp::Gt,
            LTEQ => BinOp::Le,
            GTEQ => BinOp::Ge,
            AMP2 => BinOp::And,
            PIPE2 => BinOp::Or,
            AMP => BinOp::BitAnd,
            PIPE => BinOp::BitOr,
            CARET => BinOp::BitXor,
            SHL => BinOp::Shl,
            SHR => BinOp::Shr,
            _ => return None,
        })
    }
}

/// A prefix operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PrefixOp {
    /// `-x`
    Neg,
    /// `+x`
    Plus,
    /// `!x`
    Not,
    /// `~x`
    BitNot,
    /// `++x`
    Inc,
    /// `--x`
    Dec,
    /// `*p`
    Deref,
    /// `&x`
    AddrOf,
}

impl PrefixOp {
    /// The operator as written.
    pub fn text(self) -> &'static str {
        match self {
            PrefixOp::Neg => "-",
            PrefixOp::Plus => "+",
            PrefixOp::Not => "!",
            PrefixOp::BitNot => "~",
            PrefixOp::Inc => "++",
            PrefixOp::Dec => "--",
            PrefixOp::Deref => "*",
            PrefixOp::AddrOf => "&",
        }
    }

    pub(crate) fn from_token(k: SyntaxKind) -> Option<PrefixOp> {
        use SyntaxKind::*;
        Some(match k {
            MINUS => PrefixOp::Neg,
            PLUS => PrefixOp::Plus,
            BANG => PrefixOp::Not,
            TILDE => PrefixOp::BitNot,
            PLUS2 => PrefixOp::Inc,
            MINUS2 => PrefixOp::Dec,
            STAR => PrefixOp::Deref,
            AMP => PrefixOp::AddrOf,
            _ => return None,
        })
    }
}

/// A postfix operator: `x++` or `x--`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PostfixOp {
    Inc,
    Dec,
}
