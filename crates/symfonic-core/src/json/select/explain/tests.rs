use crate::json::{analyze, resolve, Resolved};

const ORDERS: &str = r##"{"orders": {"#W1": {"status": "pending", "total": 12.5, "items": [{"sku": "a"}]},
    "#W2": {"status": "delivered", "total": 40, "items": []}}, "empty": {}, "name": "shop"}"##;

fn why(doc: &str, path: &str) -> Result<Resolved, String> {
    let d = analyze(doc.as_bytes()).unwrap();
    resolve(doc.as_bytes(), &d.index, path)
}

#[test]
fn mistakes_say_where_matching_stopped_and_what_is_there() {
    let cases = [
        ("$.orders.*.stauts", "[recall: json_path '$.orders.*.stauts' selects nothing: '$.orders.*' selects 2 objects, and none has the key 'stauts' (did you mean .status?); their keys: status,total,items]"),
        ("$.items[*].price", "[recall: json_path '$.items[*].price' selects nothing: '$' is an object with 3 keys [orders,empty,name]: none is 'items']"),
        ("$.orders[0:20]", "[recall: json_path '$.orders[0:20]' selects nothing: '$.orders' is an object with 2 keys [#W1,#W2], and [0:20] selects elements of arrays (an object's values are .*, with format='paths' for their keys)]"),
        ("$.name[*]", "[recall: json_path '$.name[*]' selects nothing: '$.name' is a string, and * selects the members of objects and the elements of arrays]"),
        ("$.orders.*.items[3]", "[recall: json_path '$.orders.*.items[3]' selects nothing: '$.orders.*.items' selects 2 arrays, the longest of length 1, so [3] is past their end]"),
        ("$.orders.*[?@.totl > 10]", "[recall: json_path '$.orders.*[?@.totl > 10]' selects nothing: none of the 6 children of '$.orders.*' has @.totl]"),
        ("$.orders[?@.total > '10']", "[recall: json_path '$.orders[?@.total > '10']' selects nothing: @.total is a number in the 2 members of '$.orders' that have it, and the filter compares it with a string ('10')]"),
        ("$.orders[?@.totl > 10]", "[recall: json_path '$.orders[?@.totl > 10]' selects nothing: none of the 2 members of '$.orders' has @.totl (did you mean @.total?); their keys there: status,total,items]"),
        ("$..stauts", "[recall: json_path '$..stauts' selects nothing: no member of '$' or below is named 'stauts' (did you mean ..status?)]"),
    ];
    for (path, want) in cases {
        assert_eq!(why(ORDERS, path), Err(want.to_string()), "{path}");
    }
}

#[test]
fn a_type_mismatch_counts_only_the_children_that_have_the_member() {
    let doc = r#"{"packages": {"a": {"dev": true}, "b": {}, "c": {"dev": false}, "d": {"name": "x"}}}"#;
    assert_eq!(
        why(doc, "$.packages[?@.dev == 'true']"),
        Err("[recall: json_path '$.packages[?@.dev == 'true']' selects nothing: @.dev is a boolean in the 2 members of '$.packages' that have it, and the filter compares it with a string ('true')]".to_string())
    );
}

#[test]
fn a_correct_query_that_matches_nothing_answers_an_empty_list() {
    for path in [
        "$.orders[?@.status == 'lost']",
        "$.empty.*",
        "$.orders.*.items[?@.sku == 'z']",
        "$..nothing_here[0]",
        "$.orders[?@.total > 1000]",
    ] {
        let got = why(ORDERS, path);
        // `..name` with no such member anywhere is explained; the rest are `[]`.
        if path.starts_with("$..") {
            assert!(got.is_err(), "{path}");
        } else {
            assert_eq!(got, Ok(Resolved::Nodes(Vec::new())), "{path}");
        }
    }
}

/// GitHub's dereferenced OpenAPI file has 11,397 operations under
/// `$.paths.*.*` (their children: `responses` and the like), and one of
/// them, past the 10,000th, documents a 402 whose
/// description differs in case from the filter's: the answer is `[]`, never
/// "none of them has @['402'].description".
#[test]
fn a_filter_explanation_looks_at_every_child_the_filter_did() {
    let mut doc = String::from("{\"paths\":{");
    for p in 0..1_140 {
        if p > 0 {
            doc.push(',');
        }
        doc.push_str(&format!("\"/p{p}\":{{"));
        for m in 0..10 {
            let code = if p == 1_139 && m == 9 { "402" } else { "422" };
            doc.push_str(&format!(
                "{}\"m{m}\":{{\"summary\":\"s\",\"responses\":{{\"{code}\":{{\"description\":\"Payment required\"}}}}}}",
                if m > 0 { "," } else { "" }
            ));
        }
        doc.push('}');
    }
    doc.push_str("}}");
    let path = "$.paths.*.*[?@[\"402\"].description == \"Payment Required\"]";
    assert_eq!(why(&doc, path), Ok(Resolved::Nodes(Vec::new())));
    // A member none of the 22,800 has is still explained, over all of them.
    assert_eq!(
        why(&doc, "$.paths.*.*[?@[\"404\"].description == \"x\"]"),
        Err("[recall: json_path '$.paths.*.*[?@[\"404\"].description == \"x\"]' selects nothing: none of the 22800 children of '$.paths.*.*' has @['404'].description (did you mean @['402']?); their keys there: 422,402]".to_string())
    );
}

/// τ-bench's retail orders (`#W` and 7 digits): `\d` is not I-Regexp, and
/// RFC 9535 has it match nothing, so the answer names it and its form.
#[test]
fn a_pattern_outside_i_regexp_is_named_with_its_i_regexp_form() {
    let doc = r##"{"orders": [{"order_id": "#W2611340"}, {"order_id": "#W4817420"}]}"##;
    let cases = [
        (r##"$.orders[?match(@.order_id, "#W\\d{7}")]"##, r"match() pattern '#W\d{7}' is not an I-Regexp (RFC 9485, the regular expressions of RFC 9535 filters), so it matches nothing: \d (write [0-9])"),
        (r##"$.orders[?search(@.order_id, "(?i)#w")]"##, "search() pattern '(?i)#w' is not an I-Regexp (RFC 9485, the regular expressions of RFC 9535 filters), so it matches nothing: (?… flags such as (?i) (I-Regexp has none: spell both cases, as [Ee]rror)"),
        (r##"$.orders[?search(@.order_id, "\\b26")]"##, r"search() pattern '\b26' is not an I-Regexp (RFC 9485, the regular expressions of RFC 9535 filters), so it matches nothing: \b (I-Regexp has no anchors or word boundaries: match() tests the whole value, search() any part of it)"),
        (r##"$.orders[?search(@.order_id, "\\w")]"##, r"search() pattern '\w' is not an I-Regexp (RFC 9485, the regular expressions of RFC 9535 filters), so it matches nothing: \w (write [A-Za-z0-9_])"),
    ];
    for (path, want) in cases {
        let got = why(doc, path).unwrap_err();
        assert!(
            got.ends_with(&format!("selects nothing: {want}]")),
            "{path}: {got}"
        );
    }
    // The I-Regexp form matches all of them.
    let Ok(Resolved::Nodes(all)) = why(doc, r##"$.orders[?match(@.order_id, "#W[0-9]{7}")]"##) else {
        panic!()
    };
    assert_eq!(all.len(), 2);
    // A negated test that selects nothing for another reason says nothing of regexes.
    assert!(why(doc, r##"$.orders[?!match(@.order_id, ".*")]"##).is_ok());
}

/// MDN's browser-compat-data: `status` is an object of booleans, so a filter
/// after it tests the booleans; the answer says how to filter its parent.
#[test]
fn a_filter_one_level_too_deep_says_how_to_filter_the_parent() {
    let doc = r#"{"api": {"A": {"__compat": {"status": {"experimental": true, "deprecated": false}}},
        "B": {"__compat": {"status": {"experimental": false, "deprecated": false}}}}}"#;
    let got = why(doc, "$.api.*.__compat.status[?@.experimental==true]").unwrap_err();
    assert_eq!(got, "[recall: json_path '$.api.*.__compat.status[?@.experimental==true]' selects nothing: none of the 4 children of '$.api.*.__compat.status' has @.experimental; '$.api.*.__compat.status' itself has @.experimental: a filter tests the children of what it follows, so filter their parent: $.api[?@.__compat.status.experimental==true]]");
    // The suggested query finds the one experimental interface.
    let Ok(Resolved::Nodes(found)) = why(doc, "$.api[?@.__compat.status.experimental==true]") else {
        panic!()
    };
    assert_eq!(found.len(), 1);
}
