//! The order of a package's releases.

/// Orders versions the way PEP 440 and semver mostly agree: numeric parts numerically, and a
/// pre-release (`1.0rc1`, `1.0.0-beta`) before its final release.
pub fn version_key(v: &str) -> (Vec<u64>, bool, String) {
    let v = v.trim_start_matches('v');
    let mut nums = Vec::new();
    let mut rest = "";
    for (i, part) in v.split('.').enumerate() {
        let digits: String = part.chars().take_while(|c| c.is_ascii_digit()).collect();
        if digits.is_empty() {
            rest = &v[v
                .split('.')
                .take(i)
                .map(|p| p.len() + 1)
                .sum::<usize>()
                .min(v.len())..];
            break;
        }
        nums.push(digits.parse().unwrap_or(u64::MAX));
        if digits.len() < part.len() {
            let offset: usize = v.split('.').take(i).map(|p| p.len() + 1).sum();
            rest = &v[offset + digits.len()..];
            break;
        }
    }
    while nums.last() == Some(&0) && nums.len() > 1 {
        nums.pop();
    }
    let pre = !rest.is_empty()
        && !rest.starts_with(".post")
        && !rest.starts_with("post")
        && !rest.starts_with('+');
    (nums, !pre, rest.to_string())
}

#[cfg(test)]
mod tests {
    use super::version_key;

    #[test]
    fn versions_order_numerically_with_prereleases_first() {
        let mut v = vec!["10.0", "2.0.0", "2.0.0rc1", "1.10.13", "1.9", "2.0"];
        v.sort_by_key(|x| version_key(x));
        assert_eq!(
            v,
            vec!["1.9", "1.10.13", "2.0.0rc1", "2.0.0", "2.0", "10.0"]
        );
    }
}
