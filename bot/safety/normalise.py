"""Text as the safety rules see it: one spelling for the many ways the same words can arrive."""

from __future__ import annotations

import re
import unicodedata

# Control and format characters (Unicode categories Cc and Cf) draw nothing, so they can
# sit inside a word without changing how it looks: NUL, zero-width spaces and joiners,
# soft hyphens, word joiners, the BOM, bidi embeddings, overrides and isolates, tag
# characters. They are removed, not turned into spaces; only whitespace separates words.
# (Whitespace controls stay: a line end still separates words.) The ranges are every Cc
# and Cf character of Unicode 15, a test checks them against `unicodedata`; with them go
# the combining grapheme joiner, variation selectors and the Hangul fillers, which are
# just as invisible.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f\xad\u034f\u0600-\u0605\u061c\u06dd"
    "\u070f\u0890\u0891\u08e2\u115f\u1160\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f\U000e0100-\U000e01ef]+"
)
# Every double quotation mark a language writes reads as '"', so a quoted title or line is
# known as one whatever its language: German and Polish „low-high", French and Russian
# «guillemets», the reversed high one.
_QUOTES = str.maketrans(
    {
        "\u2018": "'", "\u2019": "'", "\u02bc": "'", "`": "'", "\u201c": '"', "\u201d": '"',
        "\u201e": '"', "\u201f": '"', "\u00ab": '"', "\u00bb": '"',
    }
)  # fmt: skip
# A run of spaces reads as one space. Only the runs that are not one space already are
# replaced: the same text, without rebuilding it at every single space between words.
_SPACE = re.compile(r"\s{2,}|[^\S ]")
_LINE_BREAK = re.compile(r"\s*\n\s*")
_SPACE_IN_LINE = re.compile(r"[^\S\n]{2,}|[^\S\n ]")
# Letters and marks of other scripts that chat spells several ways, each read one way,
# applied after NFKC: Arabic's tatweel (a stretch drawn inside a word) goes, alef maqsura
# reads yaa, taa marbuta reads haa and the Persian keyboard's kaf and yaa read Arabic's
# (people type either); Vietnamese and South Slavic đ reads d, as it is typed without a
# Vietnamese keyboard. Other scripts' full stops, commas and question marks read as
# ASCII ones, so a sentence or a clause in them ends where it ends.
_SCRIPT_FOLDS = {
    "\u0640": None, "\u0649": "\u064a", "\u0629": "\u0647", "\u06a9": "\u0643",
    "\u06cc": "\u064a", "\u0671": "\u0627", "\u0111": "d", "\u0110": "D",
    "\u3002": ".", "\u3001": ",", "\u060c": ",", "\u061b": ";", "\u061f": "?",
}  # fmt: skip
_RUN_FOLDS = str.maketrans(
    {"\u2018": "'", "\u2019": "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"', **_SCRIPT_FOLDS}
    # The Turkish dotless i is a plain letter with a mark that Unicode does not decompose;
    # everyone who types without Turkish letters writes "i", so it reads as "i".
    | {"\u0131": "i"}
)
# Japanese kana's voicing marks are combining marks, but they make another letter (か and
# が are different sounds, and words), so they stay, and NFKC puts them back on their kana.
_KEPT_MARKS = frozenset("\u3099\u309a")
# Cyrillic and Greek letters drawn like Latin ones, capitals included (mapped before
# case-folding: a Greek capital Mu folds to a letter that looks like "u", not "m").
_LOOKALIKES = str.maketrans(
    {
        "а": "a", "в": "b", "е": "e", "ё": "e", "і": "i", "ї": "i", "ј": "j", "к": "k",
        "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t", "у": "y", "х": "x",
        "ѕ": "s", "ԁ": "d", "һ": "h", "ӏ": "l", "ԛ": "q", "ԝ": "w", "ү": "y",
        "А": "A", "В": "B", "Е": "E", "Ё": "E", "І": "I", "Ј": "J", "К": "K", "М": "M",
        "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T", "У": "Y", "Х": "X", "Ѕ": "S",
        "α": "a", "β": "b", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
        "τ": "t", "υ": "u", "χ": "x", "γ": "y", "η": "n",
        "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
        "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
    }
)  # fmt: skip
_RLO, _LRO, _RLE, _LRE, _POP = "\u202e", "\u202d", "\u202b", "\u202a", "\u202c"
_PUSHES = frozenset((_RLO, _LRO, _RLE, _LRE))
# Letters spelled out one by one: "k i l l", "k.i.l.l", "s-u-i-c-i-d-e", "k. i. l. l".
# At least three single letters, each pair split by one separator (a dot or dash may
# carry a space after it). Two spaces in a row end a word, so "k i l l  m e" stays two.
_LETTER = r"[^\W\d_]"
_SEPARATOR = r"(?:[.\-_*·•+~|/,] ?| )"
# (An underscore is a word character to `re`, and a separator here, hence [^\W_].)
_SPELLED_OUT = re.compile(
    rf"(?<![^\W_]){_LETTER}(?:{_SEPARATOR}{_LETTER}(?![^\W_])){{2,}}(?:[.\-_*·•](?= |$))?"
)
_NOT_A_LETTER = re.compile(r"[\W_]")


# Letters that decomposing, dropping marks, composing again and the folds above leave as
# they are: Hangul syllables (they come apart into jamo and back), CJK ideographs, kana (a
# voicing mark comes off and goes back on), Arabic letters with no hamza seat and no fold,
# Cyrillic letters with no mark (not й, ё, ї) and Greek letters with no accent. Only the
# runs of other non-ASCII characters need that work; a long Korean or Chinese message
# spent half its screening time on it. A stable letter joins the run after it when a
# voicing mark or a Hangul vowel or final follows, as they compose with it.
_STABLE = (
    "\uac00-\ud7a3\u4e00-\u9fff\u3041-\u3096\u30a1-\u30fa\u30fc"
    "\u0621\u0627\u0628\u062a-\u063a\u0641-\u0648\u064a\u0660-\u0669"
    "\u0410-\u0418\u041a-\u0438\u043a-\u044f\u0454\u0456\u0491"
    "\u0391-\u03a1\u03a3-\u03a9\u03b1-\u03c9"
)
_NOT_PLAIN = re.compile(
    f"(?:[^\\x00-\\x7f{_STABLE}]|[{_STABLE}](?=[\\u3099\\u309a\\u1160-\\u11ff]))+"
)


def _plain_run(run: re.Match[str]) -> str:
    decomposed = unicodedata.normalize("NFKD", run.group())
    unmarked = "".join(
        ch for ch in decomposed if not unicodedata.combining(ch) or ch in _KEPT_MARKS
    )
    return unicodedata.normalize("NFKC", unmarked).translate(_RUN_FOLDS)


def normalise(text: str) -> str:
    """NFKC-compatible, without marks or invisible characters, case-folded, single-spaced.

    Combining marks are dropped (after NFKD splits them off), so stacked or
    strike-through marks cannot hide a word; accents go too, which only
    makes matching more forgiving.
    """
    return _SPACE.sub(" ", _folded(text)).strip()


def normalise_lines(text: str) -> str:
    """`normalise`, keeping where lines break: each run of spaces that holds a line break
    becomes one line break, so `normalise_lines(t).replace("\n", " ") == normalise(t)`.
    The learned stage reads a message line by line; the rules read it joined, and both
    come from this one pass."""
    lined = _LINE_BREAK.sub("\n", _folded(text))
    return _SPACE_IN_LINE.sub(" ", lined).strip()


def _folded(text: str) -> str:
    without_invisible = _INVISIBLE.sub("", text).translate(_QUOTES)
    # Only the runs of non-ASCII characters need decomposing (an accent, a dash, a word
    # in another script): ASCII is already in its one form, and a mark after an ASCII
    # letter is a run of its own, dropped all the same; so are the stable letters above.
    composed = _NOT_PLAIN.sub(_plain_run, without_invisible)
    return composed.casefold()


def as_displayed(text: str) -> str | None:
    """The text in the order a reader sees it when it holds right-to-left overrides
    ("i want to \u202eeid" shows "i want to die"); None when it holds none.

    A simplified Unicode bidi reordering: each override or embedding raises the level
    (to the next odd level for right-to-left, the next even one for left-to-right), a
    pop or a line end lowers it, and each line is reversed level by level, from the
    highest down to the lowest odd one. Letters outside an override are taken as
    left-to-right, as Latin letters are. Nested overrides count: a word inside two
    right-to-left overrides is turned three times, so it shows reversed once.
    """
    if _RLO not in text:
        return None
    return "\n".join(_displayed_line(line) for line in text.split("\n"))


def _displayed_line(line: str) -> str:
    characters: list[str] = []
    levels: list[int] = []
    stack: list[tuple[int, bool]] = [(0, False)]  # (level, direction overridden)
    for character in line:
        level, overridden = stack[-1]
        if character in _PUSHES:
            right_to_left = character in (_RLO, _RLE)
            raised = level + 1 if (level % 2 == 0) == right_to_left else level + 2
            stack.append((raised, character in (_RLO, _LRO)))
        elif character == _POP:
            if len(stack) > 1:
                stack.pop()
        else:
            characters.append(character)
            # Outside an override a Latin letter at an odd level rises to the even one.
            levels.append(level if overridden or level % 2 == 0 else level + 1)
    highest = max(levels, default=0)
    lowest_odd = min((level for level in levels if level % 2), default=highest + 1)
    for threshold in range(highest, lowest_odd - 1, -1):
        start = 0
        while start < len(characters):
            if levels[start] < threshold:
                start += 1
                continue
            end = start
            while end < len(characters) and levels[end] >= threshold:
                end += 1
            characters[start:end] = characters[start:end][::-1]
            levels[start:end] = levels[start:end][::-1]
            start = end
    return "".join(characters)


def join_spelled_out(text: str) -> str | None:
    """`text` with every word spelled out letter by letter joined up ("k i l l m y s e l f"
    reads "killmyself"), or None when it holds no such run. Like the look-alike reading
    this is a second reading beside the text as written, never a replacement."""
    if _SPELLED_OUT.search(text) is None:
        return None
    return _SPELLED_OUT.sub(lambda run: _NOT_A_LETTER.sub("", run.group()), text)


# A look-alike letter anywhere; a Cyrillic or Greek letter that is no look-alike (б, л, θ,
# the accented Greek vowels...): a word holding one is written in that script, not disguised.
_LOOKALIKE = re.compile("[" + "".join(chr(code) for code in _LOOKALIKES) + "]")
_OWN_LETTER = re.compile(
    "(?![" + "".join(chr(code) for code in _LOOKALIKES) + "])"
    "[\u0370-\u03ff\u1f00-\u1fff\u0400-\u052f\u1c80-\u1c8f\u2de0-\u2dff\ua640-\ua69f]"
)
_LATIN_LETTER = re.compile("[A-Za-z]")
_WORD_RUN = re.compile(r"\w+")


def unmask_lookalikes(text: str) -> str:
    """The words disguised with Cyrillic or Greek look-alikes read in Latin ("kіll",
    "ԁіе"). The rules see this as a second reading of a message, beside the text as
    written, so a word disguised letter by letter is found.

    A word with any other Cyrillic or Greek letter in it is written in that script and
    stays as it is. And in a text that holds such words, a short word made only of
    look-alikes is a word of that script too ("не", "у", "на", "τι"): only words that
    mix look-alikes with Latin letters are read in Latin there. Otherwise the second
    reading of "я ніколи не вб'ю себе" would say "he" for "не" and lose the negation,
    and the rule that matches in both readings would answer from the one that lost it."""
    if _LOOKALIKE.search(text) is None:
        return text
    words = _WORD_RUN.findall(text)
    own_script = any(_OWN_LETTER.search(word) for word in words)

    def unmask(word: re.Match[str]) -> str:
        found = word.group()
        if _OWN_LETTER.search(found) or (own_script and not _LATIN_LETTER.search(found)):
            return found
        return found.translate(_LOOKALIKES)

    return _WORD_RUN.sub(unmask, text)


# Spanish, Portuguese and Italian as typed in chat: short forms for whole words ("kiero"
# for quiero, "q" for que, "xq" for porque, "nose" for no se, "nn" for non, "xke" for
# perche). Every rule written in full
# spelling then reads them too, without each rule spelling out every short form.
_CHAT_SPELLINGS = {
    "kiero": "quiero", "kiere": "quiere", "kieres": "quieres", "kiera": "quiera",
    "kisiera": "quisiera", "q": "que", "k": "que", "xq": "porque", "pq": "porque",
    "porq": "porque", "nose": "no se", "toy": "estoy", "toi": "estoy", "aki": "aqui",
    "tmb": "tambien", "tb": "tambien", "xfa": "por favor",
    "nn": "non", "xke": "perche", "xk": "perche",
}  # fmt: skip
_CHAT_WORD = re.compile(r"(?<![\w'])(?:" + "|".join(_CHAT_SPELLINGS) + r")(?![\w'])")


def expand_chat_spellings(text: str) -> str | None:
    """`text` (already normalised) with chat short forms written out ("me kiero matar"
    reads "me quiero matar"), or None when it holds none. A second reading beside the
    text as written, like the others, never a replacement."""
    if _CHAT_WORD.search(text) is None:
        return None
    return _CHAT_WORD.sub(lambda word: _CHAT_SPELLINGS[word.group()], text)
