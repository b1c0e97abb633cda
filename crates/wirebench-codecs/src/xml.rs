//! XML on quick-xml's event API: one element per key under `<root>`.
//!
//! Layout: a map is one child element per key (key order kept); an array is its element
//! repeated once per item (`{"data":[1,2]}` → `<root><data>1</data><data>2</data></root>`); a
//! top-level array, or an array directly inside an array, is `<item>` children inside its
//! element; scalars are text (floats in their shortest round-trip form, bytes as hex); null is
//! an empty element with `nil="true"`. No XML declaration.
//!
//! Decoding works without a schema (every scalar comes back as text, repeated elements become
//! arrays) and, given one, restores types, arrays of 0 or 1 items and absent optional fields.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use wirebench_core::value::{max_depth, too_many_attributes, MAX_ATTRIBUTES};

use quick_xml::escape::{partial_escape, resolve_xml_entity};
use quick_xml::events::{BytesEnd, BytesStart, BytesText, Event};
use quick_xml::{Reader, Writer};
use wirebench_core::schema::int_range;
use wirebench_core::value::{from_hex, to_hex};
use wirebench_core::{Field, Schema, Type, Value};

use crate::{Codec, CodecError, CodecInfo, SchemaUse};

pub struct Xml;

static INFO: CodecInfo = CodecInfo {
    id: "xml",
    format: "XML (element per key)",
    library: "quick-xml",
    schema: SchemaUse::Optional,
    media_type: "application/xml",
    fidelity_notes: &[
        "without a schema every scalar reads back as text",
        "without a schema, repeated elements become an array (a one-item array reads back as a \
         single value, an empty one disappears), an element whose children are all <item> reads \
         back as an array, and an empty element (an empty map or array too) reads back as an empty string",
        "with a schema, types are restored; an absent optional array field reads back as an empty array",
        "no XML declaration is written (UTF-8 is implied); input must be UTF-8",
        "keys that are not XML names (no colon, no leading digit) are unsupported, and so are \
         strings with characters XML 1.0 cannot hold (most control characters, U+FFFE, U+FFFF)",
        "bytes are hex text; null is an empty element with nil=\"true\"",
    ],
};

impl Codec for Xml {
    fn info(&self) -> &'static CodecInfo {
        &INFO
    }

    fn encode(&self, value: &Value, schema: Option<&Schema>, out: &mut Vec<u8>) -> Result<(), CodecError> {
        if let Some(s) = schema {
            s.check(value)?;
        }
        self.encode_fitted(value, schema, out)
    }

    fn encode_fitted(&self, value: &Value, schema: Option<&Schema>, out: &mut Vec<u8>) -> Result<(), CodecError> {
        let start = out.len();
        let mut w = Writer::new(&mut *out);
        let res = write_elem(&mut w, "root", value, schema.map(|s| &s.root), 0);
        if let Err(e) = res {
            out.truncate(start);
            return Err(e.into_error());
        }
        Ok(())
    }

    fn decode(&self, bytes: &[u8], schema: Option<&Schema>) -> Result<Value, CodecError> {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| CodecError::decode("XML input is not valid UTF-8", Some(e.valid_up_to())))?;
        let mut p = Parser { r: Reader::from_str(text) };
        let (root, empty) = loop {
            match p.next()? {
                Event::Start(e) => break (e, false),
                Event::Empty(e) => break (e, true),
                Event::Text(t) if is_blank(&t) => {}
                Event::Decl(_) | Event::PI(_) | Event::Comment(_) | Event::DocType(_) => {}
                Event::Eof => return Err(p.err("no root element")),
                Event::End(_) => return Err(p.err("end tag before the root element")),
                _ => return Err(p.err("text before the root element")),
            }
        };
        let v = p.element(&root, empty, schema.map(|s| &s.root), 0)?;
        loop {
            match p.next()? {
                Event::Eof => break,
                Event::Text(t) if is_blank(&t) => {}
                Event::PI(_) | Event::Comment(_) => {}
                Event::Start(_) | Event::Empty(_) => return Err(p.err("a second root element")),
                _ => return Err(p.err("content after the root element")),
            }
        }
        Ok(v)
    }
}

fn is_blank(b: &[u8]) -> bool {
    b.iter().all(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
}

// ---------------------------------------------------------------------------------------------
// Encoding.

/// A value the format cannot hold, with the path where (built while unwinding).
enum WriteError {
    Unsupported { what: String, path: Vec<String> },
    Io(std::io::Error),
}

impl WriteError {
    fn unsupported(what: String) -> WriteError {
        WriteError::Unsupported { what, path: Vec::new() }
    }
    fn at(self, seg: impl FnOnce() -> String) -> WriteError {
        match self {
            WriteError::Unsupported { what, mut path } => {
                path.push(seg());
                WriteError::Unsupported { what, path }
            }
            other => other,
        }
    }
    fn into_error(self) -> CodecError {
        match self {
            WriteError::Unsupported { what, path } => {
                let path: String = path.iter().rev().map(String::as_str).collect();
                CodecError::Unsupported(format!("{what} (at ${path})"))
            }
            WriteError::Io(e) => CodecError::Encode(e.to_string()),
        }
    }
}

impl From<std::io::Error> for WriteError {
    fn from(e: std::io::Error) -> Self {
        WriteError::Io(e)
    }
}

type Out<'a> = Writer<&'a mut Vec<u8>>;

/// One element `name` holding `v`. `ty` (when a schema is given) only picks float text widths.
fn write_elem(w: &mut Out, name: &str, v: &Value, ty: Option<&Type>, depth: usize) -> Result<(), WriteError> {
    if depth > max_depth() {
        return Err(WriteError::unsupported(format!("values nested deeper than {} elements", max_depth())));
    }
    let float64 = matches!(ty, Some(Type::Float { bits }) if *bits > 32);
    match v {
        Value::Null => {
            w.write_event(Event::Empty(BytesStart::new(name).with_attributes([("nil", "true")])))?;
        }
        Value::Bool(b) => text_elem(w, name, if *b { "true" } else { "false" })?,
        Value::Int(i) => text_elem(w, name, &i.to_string())?,
        Value::UInt(u) => text_elem(w, name, &u.to_string())?,
        // A float32 in a float64 field is written as the float64 it reads back as.
        Value::F32(f) if float64 => text_elem(w, name, &f64_text(*f as f64))?,
        Value::F32(f) => text_elem(w, name, &f32_text(*f))?,
        Value::F64(f) => text_elem(w, name, &f64_text(*f))?,
        Value::String(s) => {
            let t = escape_text(s).map_err(|c| {
                WriteError::unsupported(format!("string holds U+{:04X}, which XML 1.0 cannot hold", c as u32))
            })?;
            text_elem(w, name, &t)?;
        }
        Value::Bytes(b) => text_elem(w, name, &to_hex(b))?,
        Value::Map(pairs) => {
            if pairs.is_empty() {
                w.write_event(Event::Empty(BytesStart::new(name)))?;
                return Ok(());
            }
            w.write_event(Event::Start(BytesStart::new(name)))?;
            let fields: &[Field] = match ty {
                Some(Type::Record { fields, .. }) => fields,
                _ => &[],
            };
            let mut known = wirebench_core::value::Lookup::new(fields);
            for (k, fv) in pairs {
                if !is_xml_name(k) {
                    return Err(WriteError::unsupported(format!("key {k:?} is not an XML element name")));
                }
                let fty = known.get(k).map(|f| &f.ty);
                write_field(w, k, fv, fty, depth + 1).map_err(|e| e.at(|| format!(".{k}")))?;
            }
            w.write_event(Event::End(BytesEnd::new(name)))?;
        }
        Value::Array(items) => {
            if items.is_empty() {
                w.write_event(Event::Empty(BytesStart::new(name)))?;
                return Ok(());
            }
            let ity = match ty {
                Some(Type::Array { items }) => Some(&**items),
                _ => None,
            };
            w.write_event(Event::Start(BytesStart::new(name)))?;
            for (i, it) in items.iter().enumerate() {
                write_elem(w, "item", it, ity, depth + 1).map_err(|e| e.at(|| format!("[{i}]")))?;
            }
            w.write_event(Event::End(BytesEnd::new(name)))?;
        }
    }
    Ok(())
}

/// A map entry: an array repeats the element once per item, anything else is one element.
fn write_field(w: &mut Out, key: &str, v: &Value, ty: Option<&Type>, depth: usize) -> Result<(), WriteError> {
    match v {
        Value::Array(items) => {
            let ity = match ty {
                Some(Type::Array { items }) => Some(&**items),
                _ => None,
            };
            for (i, it) in items.iter().enumerate() {
                write_elem(w, key, it, ity, depth).map_err(|e| e.at(|| format!("[{i}]")))?;
            }
            Ok(())
        }
        _ => write_elem(w, key, v, ty, depth),
    }
}

/// `<name>text</name>`, or `<name/>` for empty text; `text` is already escaped.
fn text_elem(w: &mut Out, name: &str, text: &str) -> Result<(), WriteError> {
    if text.is_empty() {
        w.write_event(Event::Empty(BytesStart::new(name)))?;
    } else {
        w.write_event(Event::Start(BytesStart::new(name)))?;
        w.write_event(Event::Text(BytesText::from_escaped(text)))?;
        w.write_event(Event::End(BytesEnd::new(name)))?;
    }
    Ok(())
}

/// Escaped element text; carriage returns become `&#13;` so a reader's end-of-line
/// normalization keeps them. Err: a character XML 1.0 cannot hold.
fn escape_text(s: &str) -> Result<Cow<'_, str>, char> {
    if let Some(c) = s.chars().find(|&c| !xml_char(c)) {
        return Err(c);
    }
    let t = partial_escape(s);
    Ok(if t.contains('\r') { Cow::Owned(t.replace('\r', "&#13;")) } else { t })
}

/// Characters XML 1.0 allows in a document.
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
}

fn is_name_start(c: char) -> bool {
    matches!(c,
        'A'..='Z' | '_' | 'a'..='z' | '\u{C0}'..='\u{D6}' | '\u{D8}'..='\u{F6}' | '\u{F8}'..='\u{2FF}'
        | '\u{370}'..='\u{37D}' | '\u{37F}'..='\u{1FFF}' | '\u{200C}'..='\u{200D}' | '\u{2070}'..='\u{218F}'
        | '\u{2C00}'..='\u{2FEF}' | '\u{3001}'..='\u{D7FF}' | '\u{F900}'..='\u{FDCF}' | '\u{FDF0}'..='\u{FFFD}'
        | '\u{10000}'..='\u{EFFFF}')
}

/// An XML name without a colon (a namespace-safe NCName).
fn is_xml_name(s: &str) -> bool {
    let mut cs = s.chars();
    cs.next().is_some_and(is_name_start)
        && cs.all(|c| {
            is_name_start(c)
                || matches!(c, '-' | '.' | '0'..='9' | '\u{B7}' | '\u{300}'..='\u{36F}' | '\u{203F}'..='\u{2040}')
        })
}

/// The shorter of the positional and exponent forms; both read back as the same value.
fn shortest(positional: String, exponent: String) -> String {
    if exponent.len() < positional.len() {
        exponent
    } else {
        positional
    }
}

fn f64_text(f: f64) -> String {
    if f.is_nan() {
        "NaN".into()
    } else if f.is_infinite() {
        if f > 0.0 { "INF" } else { "-INF" }.into()
    } else {
        shortest(format!("{f}"), format!("{f:e}"))
    }
}

fn f32_text(f: f32) -> String {
    if f.is_nan() {
        "NaN".into()
    } else if f.is_infinite() {
        if f > 0.0 { "INF" } else { "-INF" }.into()
    } else {
        shortest(format!("{f}"), format!("{f:e}"))
    }
}

// ---------------------------------------------------------------------------------------------
// Decoding.

struct Parser<'a> {
    r: Reader<&'a [u8]>,
}

/// What an element holds next.
enum Content<'a> {
    Text(Cow<'a, str>),
    Child(BytesStart<'a>, bool),
    End,
}

impl<'a> Parser<'a> {
    fn at(&self) -> usize {
        self.r.buffer_position() as usize
    }

    fn err(&self, msg: impl Into<String>) -> CodecError {
        CodecError::decode(msg, Some(self.at()))
    }

    fn xml(&self, e: quick_xml::Error) -> CodecError {
        CodecError::decode(format!("malformed XML: {e}"), Some(self.r.error_position() as usize))
    }

    fn next(&mut self) -> Result<Event<'a>, CodecError> {
        self.r.read_event().map_err(|e| self.xml(e))
    }

    /// The next piece of an element's content (text, a child element, or its end tag).
    fn content(&mut self, name: &str) -> Result<Content<'a>, CodecError> {
        loop {
            return Ok(match self.next()? {
                Event::Text(t) => {
                    Content::Text(t.xml10_content().map_err(|e| self.err(format!("malformed XML text: {e}")))?)
                }
                Event::CData(t) => {
                    Content::Text(t.xml10_content().map_err(|e| self.err(format!("malformed CDATA: {e}")))?)
                }
                Event::GeneralRef(r) => {
                    if r.is_char_ref() {
                        match r.resolve_char_ref() {
                            Ok(Some(c)) => Content::Text(Cow::Owned(c.to_string())),
                            _ => return Err(self.err("invalid character reference")),
                        }
                    } else {
                        let name = r.decode().map_err(|e| self.err(format!("malformed reference: {e}")))?;
                        match resolve_xml_entity(&name) {
                            Some(s) => Content::Text(Cow::Borrowed(s)),
                            None => return Err(self.err(format!("unknown entity &{name};"))),
                        }
                    }
                }
                Event::Start(e) => Content::Child(e, false),
                Event::Empty(e) => Content::Child(e, true),
                Event::End(_) => Content::End,
                Event::Comment(_) | Event::PI(_) => continue,
                Event::Eof => return Err(self.err(format!("input ends inside <{name}>"))),
                Event::Decl(_) | Event::DocType(_) => {
                    return Err(self.err(format!("XML declaration or DOCTYPE inside <{name}>")))
                }
            });
        }
    }

    /// Skip the rest of an element the schema does not know.
    fn skip(&mut self, start: &BytesStart, empty: bool) -> Result<(), CodecError> {
        if !empty {
            self.r.read_to_end(start.name()).map_err(|e| self.xml(e))?;
        }
        Ok(())
    }

    fn element(
        &mut self,
        start: &BytesStart,
        empty: bool,
        ty: Option<&Type>,
        depth: usize,
    ) -> Result<Value, CodecError> {
        if depth > max_depth() {
            return Err(self.err(format!("elements nested deeper than {}", max_depth())));
        }
        let name = elem_name(start);
        let nil = self.attributes(start)?;
        match ty {
            None | Some(Type::Any) => self.untyped(&name, empty, nil, depth),
            Some(Type::Record { fields, .. }) => self.record(&name, empty, nil, fields, depth),
            Some(Type::Array { items }) => self.array(&name, empty, nil, items, depth),
            Some(scalar) => self.scalar(&name, empty, nil, scalar),
        }
    }

    /// Whether the element carries `nil="true"`. At most [`MAX_ATTRIBUTES`] attributes, and a
    /// repeated name is refused with a hash set: quick-xml's own check compares each name with
    /// every earlier one (n² for n attributes: tens of thousands in one tag took seconds).
    fn attributes(&self, start: &BytesStart) -> Result<bool, CodecError> {
        let mut nil = false;
        let mut names: Vec<&[u8]> = Vec::new();
        let mut seen: HashSet<&[u8]> = HashSet::new();
        let mut attrs = start.attributes();
        attrs.with_checks(false);
        for a in attrs {
            let a = a.map_err(|e| CodecError::decode(format!("malformed attribute: {e}"), Some(self.at())))?;
            let key = a.key.into_inner();
            if names.len() == MAX_ATTRIBUTES {
                return Err(self.err(too_many_attributes(MAX_ATTRIBUTES)));
            }
            let repeated = if names.len() < 8 {
                names.contains(&key)
            } else {
                if seen.is_empty() {
                    seen.extend(names.iter().copied());
                }
                !seen.insert(key)
            };
            if repeated {
                let key = String::from_utf8_lossy(key);
                return Err(self.err(format!("malformed attribute: {key} is given twice in <{}>", elem_name(start))));
            }
            names.push(key);
            if key == b"nil" && a.value.as_ref() == b"true" {
                nil = true;
            }
        }
        Ok(nil)
    }

    fn untyped(&mut self, name: &str, empty: bool, nil: bool, depth: usize) -> Result<Value, CodecError> {
        let mut text = String::new();
        let mut children: Vec<(String, Value)> = Vec::new();
        if !empty {
            loop {
                match self.content(name)? {
                    Content::Text(t) => text.push_str(&t),
                    Content::Child(s, e) => {
                        let v = self.element(&s, e, None, depth + 1)?;
                        children.push((elem_name(&s).into_owned(), v));
                    }
                    Content::End => break,
                }
            }
        }
        if nil {
            return Ok(Value::Null);
        }
        if children.is_empty() {
            return Ok(Value::String(text));
        }
        if !is_blank(text.as_bytes()) {
            return Err(self.err(format!("<{name}> mixes text and elements")));
        }
        if children.iter().all(|(k, _)| k == "item") {
            return Ok(Value::Array(children.into_iter().map(|(_, v)| v).collect()));
        }
        // Group repeated names into arrays, at the place of their first occurrence.
        let mut out: Vec<(String, Value)> = Vec::with_capacity(children.len());
        let mut grouped: Vec<bool> = Vec::with_capacity(children.len());
        let mut index: HashMap<String, usize> = HashMap::new();
        for (k, v) in children {
            let found = if out.len() <= 16 { out.iter().position(|(o, _)| *o == k) } else { index.get(&k).copied() };
            match found {
                Some(i) => {
                    if !grouped[i] {
                        let first = std::mem::replace(&mut out[i].1, Value::Null);
                        out[i].1 = Value::Array(vec![first]);
                        grouped[i] = true;
                    }
                    if let Value::Array(items) = &mut out[i].1 {
                        items.push(v);
                    }
                }
                None => {
                    if out.len() >= 16 {
                        if index.is_empty() {
                            index.extend(out.iter().enumerate().map(|(i, (o, _))| (o.clone(), i)));
                        }
                        index.insert(k.clone(), out.len());
                    }
                    out.push((k, v));
                    grouped.push(false);
                }
            }
        }
        Ok(Value::Map(out))
    }

    fn record(
        &mut self,
        name: &str,
        empty: bool,
        nil: bool,
        fields: &[Field],
        depth: usize,
    ) -> Result<Value, CodecError> {
        let mut slots: Vec<Option<Value>> = (0..fields.len()).map(|_| None).collect();
        let mut lists: Vec<Vec<Value>> = (0..fields.len()).map(|_| Vec::new()).collect();
        let mut known = wirebench_core::value::Lookup::new(fields);
        if !empty {
            loop {
                match self.content(name)? {
                    Content::Text(t) => {
                        if !is_blank(t.as_bytes()) {
                            return Err(self.err(format!("text inside record element <{name}>")));
                        }
                    }
                    Content::Child(s, e) => {
                        let key = elem_name(&s);
                        let Some(i) = known.position(&key) else {
                            self.skip(&s, e)?;
                            continue;
                        };
                        match &fields[i].ty {
                            Type::Array { items } => {
                                let v = self.element(&s, e, Some(items), depth + 1)?;
                                lists[i].push(v);
                            }
                            ty => {
                                if slots[i].is_some() {
                                    return Err(self.err(format!(
                                        "<{key}> repeated, but the schema's field is {}, not an array",
                                        ty.describe()
                                    )));
                                }
                                slots[i] = Some(self.element(&s, e, Some(ty), depth + 1)?);
                            }
                        }
                    }
                    Content::End => break,
                }
            }
        }
        if nil {
            return Ok(Value::Null);
        }
        let mut pairs = Vec::with_capacity(fields.len());
        for ((f, slot), list) in fields.iter().zip(slots).zip(lists) {
            match (&f.ty, slot) {
                (Type::Array { items }, _) => {
                    // One nil element where items cannot be null: the field itself is null.
                    let v = if list.len() == 1 && list[0] == Value::Null && !matches!(**items, Type::Null | Type::Any) {
                        Value::Null
                    } else {
                        Value::Array(list)
                    };
                    pairs.push((f.name.clone(), v));
                }
                (_, Some(v)) => pairs.push((f.name.clone(), v)),
                (_, None) if f.may_be_absent() => {}
                (_, None) => return Err(self.err(format!("<{name}> lacks the required element <{}>", f.name))),
            }
        }
        Ok(Value::Map(pairs))
    }

    fn array(&mut self, name: &str, empty: bool, nil: bool, items: &Type, depth: usize) -> Result<Value, CodecError> {
        let mut out = Vec::new();
        if !empty {
            loop {
                match self.content(name)? {
                    Content::Text(t) => {
                        if !is_blank(t.as_bytes()) {
                            return Err(self.err(format!("text inside array element <{name}>")));
                        }
                    }
                    Content::Child(s, e) => {
                        if s.name().as_ref() != b"item" {
                            return Err(
                                self.err(format!("<{}> inside array element <{name}>; expected <item>", elem_name(&s)))
                            );
                        }
                        out.push(self.element(&s, e, Some(items), depth + 1)?);
                    }
                    Content::End => break,
                }
            }
        }
        Ok(if nil { Value::Null } else { Value::Array(out) })
    }

    fn scalar(&mut self, name: &str, empty: bool, nil: bool, ty: &Type) -> Result<Value, CodecError> {
        let at = self.at();
        let mut text: Cow<'a, str> = Cow::Borrowed("");
        if !empty {
            loop {
                match self.content(name)? {
                    Content::Text(t) if text.is_empty() => text = t,
                    Content::Text(t) => text.to_mut().push_str(&t),
                    Content::Child(s, _) => {
                        return Err(self.err(format!(
                            "element <{}> inside <{name}>, which holds {}",
                            elem_name(&s),
                            ty.describe()
                        )))
                    }
                    Content::End => break,
                }
            }
        }
        if nil {
            return Ok(Value::Null);
        }
        let bad = || CodecError::decode(format!("<{name}> holds {text:?}, not a {}", ty.describe()), Some(at));
        let t = text.trim_matches(|c| matches!(c, ' ' | '\t' | '\r' | '\n'));
        Ok(match ty {
            Type::String => Value::String(text.into_owned()),
            Type::Null if t.is_empty() => Value::Null,
            Type::Bool => match t {
                "true" | "1" => Value::Bool(true),
                "false" | "0" => Value::Bool(false),
                _ => return Err(bad()),
            },
            Type::Int { bits, signed } => {
                let (lo, hi) = int_range(*bits, *signed);
                let n: i128 = t.parse().map_err(|_| bad())?;
                if n < lo || n > hi {
                    return Err(bad());
                }
                if *signed {
                    Value::Int(n as i64)
                } else {
                    Value::UInt(n as u64)
                }
            }
            Type::Float { bits } => {
                let special = match t {
                    "NaN" => Some(f64::NAN),
                    "INF" | "+INF" => Some(f64::INFINITY),
                    "-INF" => Some(f64::NEG_INFINITY),
                    _ => None,
                };
                match (special, *bits <= 32) {
                    (Some(f), true) => Value::F32(f as f32),
                    (Some(f), false) => Value::F64(f),
                    (None, true) => Value::F32(parse_float(t).ok_or_else(bad)?),
                    (None, false) => Value::F64(parse_float(t).ok_or_else(bad)?),
                }
            }
            Type::Bytes => Value::Bytes(from_hex(t).ok_or_else(bad)?),
            _ => return Err(bad()),
        })
    }
}

/// A decimal float (Rust's parser also takes "inf"/"nan" spellings; XML's are handled above).
fn parse_float<F: std::str::FromStr>(t: &str) -> Option<F> {
    if t.is_empty() || t.contains(|c: char| c.is_ascii_alphabetic() && c != 'e' && c != 'E') {
        return None;
    }
    t.parse().ok()
}

fn elem_name<'b>(s: &'b BytesStart) -> Cow<'b, str> {
    String::from_utf8_lossy(s.name().0)
}
