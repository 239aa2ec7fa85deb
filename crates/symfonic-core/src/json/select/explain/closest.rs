//! The closest key to a mistyped one: the "did you mean" of an explanation.

/// The known key a mistyped `key` most likely meant: the same but for case,
/// or within a third of its length in edits.
pub(super) fn near(key: &str, keys: &[String]) -> Option<String> {
    let lower = key.to_lowercase();
    if let Some(k) = keys.iter().find(|k| k.to_lowercase() == lower) {
        return Some(k.clone());
    }
    let limit = key.chars().count() / 3;
    keys.iter()
        .map(|k| (edits(&lower, &k.to_lowercase()), k))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, k)| k.clone())
}

/// Edit distance, a swap of neighbours counting as one (bounded inputs: keys).
pub(super) fn edits(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().take(64).collect(), b.chars().take(64).collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}
