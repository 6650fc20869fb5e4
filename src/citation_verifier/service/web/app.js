"use strict";
// The citation-verifier page: two modes in tabs. "One claim" posts a claim and its URLs to
// /verify; "Whole answer" posts an LLM answer to /check-answer and shows each statement with its
// markers coloured by verdict. Both can give the day the answer cited its pages ("Cited on")
// and ask to compare each page with its archived copy from then; a citation card says when its
// verdict was judged on an archived copy and when the page changed since it was cited. A verdict
// whose confidence is under REVIEW_BELOW says it needs review and why, and when several verdicts
// are shown a "Look at these first" list names those, most consequential first.
// Everything is rendered with textContent: page text and answer text are untrusted and never
// parsed as HTML.

(function () {
  const keyInput = document.getElementById("api-key");

  const LABEL_TEXT = {
    supported: "supported",
    contradicted: "contradicted",
    not_found: "not found",
    partial: "partly supported",
    unreachable: "unreachable",
    uncited: "uncited",
    unresolved: "unresolved",
    mixed: "mixed",
  };
  // Shown beside a marker so that its verdict never rests on colour alone.
  const ICON = {
    supported: "✓",
    contradicted: "✗",
    not_found: "?",
    partial: "◐",
    unreachable: "⊘",
    unresolved: "!",
    mixed: "±",
  };
  const COUNT_ORDER = ["supported", "partial", "contradicted", "not_found", "unreachable", "uncited", "unresolved"];

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  // A URL as text with a line-break opportunity (<wbr>) after each "/", "?" and "&": on a
  // narrow screen it wraps between its parts, not in the middle of a word.
  function breakableUrl(url) {
    const fragment = document.createDocumentFragment();
    String(url).split(/(?<=[/?&])/).forEach(function (part, index) {
      if (index > 0) fragment.appendChild(document.createElement("wbr"));
      fragment.appendChild(document.createTextNode(part));
    });
    return fragment;
  }

  function badge(label) {
    const node = el("span", "badge badge-" + label, LABEL_TEXT[label] || label);
    node.dataset.label = label;
    return node;
  }

  function plural(count, one, many) {
    return count + " " + (count === 1 ? one : many);
  }

  function row(list, name, value) {
    list.appendChild(el("dt", null, name));
    const dd = el("dd");
    if (value instanceof Node) dd.appendChild(value);
    else dd.textContent = value === null || value === undefined || value === "" ? "—" : String(value);
    list.appendChild(dd);
  }

  // The passage the quote came from, with the quote in a <mark>.
  function evidenceBlock(citation) {
    const figure = el("figure", "evidence");
    figure.appendChild(el("figcaption", null, "Evidence, in the passage it came from"));
    const block = el("blockquote", "passage");
    const context = citation.evidence_context;
    if (context && context.end > context.start) {
      const passage = context.passage;
      block.appendChild(document.createTextNode(passage.slice(0, context.start)));
      block.appendChild(el("mark", "quote", passage.slice(context.start, context.end)));
      block.appendChild(document.createTextNode(passage.slice(context.end)));
    } else {
      block.appendChild(el("mark", "quote", citation.evidence_quote));
    }
    figure.appendChild(block);
    return figure;
  }

  // --- archived copies (Wayback Machine) ----------------------------------------------------

  const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

  function pad(number) {
    return (number < 10 ? "0" : "") + number;
  }

  // A capture time (ISO, UTC) as a <time>: "15 Feb 2021", the exact time in its tooltip.
  function captureTime(iso) {
    const moment = new Date(iso);
    if (!iso || isNaN(moment.getTime())) return el("span", null, iso ? String(iso) : "unknown date");
    const node = el(
      "time",
      null,
      moment.getUTCDate() + " " + MONTHS[moment.getUTCMonth()] + " " + moment.getUTCFullYear()
    );
    node.dateTime = moment.toISOString();
    node.title =
      moment.getUTCFullYear() + "-" + pad(moment.getUTCMonth() + 1) + "-" + pad(moment.getUTCDate()) +
      " " + pad(moment.getUTCHours()) + ":" + pad(moment.getUTCMinutes()) + " UTC";
    return node;
  }

  // "archived copy of 15 Feb 2021", linked to the capture when its address is http(s).
  function archiveLink(url, archivedAt) {
    const safe = typeof url === "string" && /^https?:\/\//i.test(url);
    const node = safe ? el("a", "archive-link") : el("span", "archive-link");
    if (safe) {
      node.href = url;
      node.rel = "noopener noreferrer nofollow";
      node.target = "_blank";
    }
    node.appendChild(document.createTextNode("archived copy of "));
    node.appendChild(captureTime(archivedAt));
    return node;
  }

  // The live page was dead: the verdict was judged on the capture.
  function archivedNote(citation) {
    const note = el("p", "note note-archived");
    const icon = el("span", "note-icon", "↺");
    icon.setAttribute("aria-hidden", "true");
    note.appendChild(icon);
    note.appendChild(el("strong", null, "Live page: " + (citation.live_reason || "unusable")));
    note.appendChild(document.createTextNode(" — judged on the "));
    note.appendChild(archiveLink(citation.archive_url, citation.archived_at));
    return note;
  }

  // One side of the comparison: the label, the quote (or why there is none) and where from.
  function compareSide(term, verdict, source) {
    const group = el("div", "side");
    group.appendChild(el("dt", null, term));
    const dd = el("dd");
    const head = el("p", "side-head");
    head.appendChild(badge(verdict.label));
    if (typeof verdict.confidence === "number") {
      head.appendChild(el("span", "side-confidence", " confidence " + verdict.confidence.toFixed(2)));
    }
    dd.appendChild(head);
    if (verdict.evidence_quote) dd.appendChild(el("blockquote", "passage side-quote", verdict.evidence_quote));
    else dd.appendChild(el("p", "side-none", verdict.reason ? "No quote (" + verdict.reason + ")." : "No quote."));
    dd.appendChild(source);
    group.appendChild(dd);
    return group;
  }

  // A wall stood in front of the page: say so in words, with what was tried to get past it.
  const STEP_WORDS = {
    retry_after: "waited the site's short Retry-After",
    refuse_consent: "refused cookie consent in a browser",
    browser: "loaded it in a browser",
    crawling_api: "asked the Crawling API",
  };

  function wallNote(citation) {
    const note = el("p", "note note-wall");
    const icon = el("span", "note-icon", "⊘");
    icon.setAttribute("aria-hidden", "true");
    note.appendChild(icon);
    const words = citation.could_not_read;
    note.appendChild(el("strong", null, words.charAt(0).toUpperCase() + words.slice(1)));
    const tried = (citation.recoveries || []).map(function (step) {
      return (STEP_WORDS[step.step] || step.step) + " (" + step.outcome + ")";
    });
    if (tried.length) note.appendChild(document.createTextNode(". Tried: " + tried.join("; ") + "."));
    if (typeof citation.retry_after_s === "number") {
      note.appendChild(document.createTextNode(" The site asked us to retry after " + citation.retry_after_s + " s."));
    }
    return note;
  }

  // --- verdicts a person should look at ----------------------------------------------------

  // What a wrong verdict of each label costs: calibration.review_priority's weights (a test
  // checks they agree), so the list is in the order the CLI and the batch report use.
  const REVIEW_WEIGHT = { supported: 3, contradicted: 2, not_found: 1 };

  function reviewPriority(citation) {
    const confidence = typeof citation.confidence === "number" ? citation.confidence : 1;
    return (REVIEW_WEIGHT[citation.label] || 0) * (1 - confidence);
  }

  function reviewNote(citation) {
    const note = el("p", "note note-review");
    const icon = el("span", "note-icon", "⚑");
    icon.setAttribute("aria-hidden", "true");
    note.appendChild(icon);
    note.appendChild(el("strong", null, "Needs review"));
    if (citation.review_reason) {
      note.appendChild(document.createTextNode(": " + citation.review_reason));
    }
    return note;
  }

  // "Look at these first" in `section`, from `entries` ({citation, name, target}: the verdict,
  // how to name it, the id of its card) in the order shown: only when several verdicts are
  // shown (one card speaks for itself); it says so when none needs review.
  function renderReviewFirst(section, entries) {
    const list = section.querySelector("ol");
    const old = section.querySelector(".review-none");
    if (old) old.remove();
    section.hidden = entries.length < 2;
    const marked = entries.filter(function (entry) {
      return entry.citation.needs_review === true;
    });
    // Array.prototype.sort is stable: input order among equals.
    marked.sort(function (a, b) {
      return reviewPriority(b.citation) - reviewPriority(a.citation);
    });
    list.replaceChildren(...marked.map(reviewItem));
    list.hidden = marked.length === 0;
    if (!marked.length) section.appendChild(el("p", "review-none", "None of these verdicts needs review."));
  }

  function reviewItem(entry) {
    const citation = entry.citation;
    const item = el("li", "review-item");
    item.appendChild(badge(citation.label));
    item.appendChild(document.createTextNode(" "));
    const link = el("a");
    link.href = "#" + entry.target;
    link.appendChild(breakableUrl(entry.name));
    item.appendChild(link);
    const confidence = typeof citation.confidence === "number" ? citation.confidence.toFixed(2) : "—";
    item.appendChild(document.createTextNode(" · confidence " + confidence));
    if (citation.review_reason) item.appendChild(document.createTextNode(" · " + citation.review_reason));
    return item;
  }

  // A click on an in-page link (``selector``) opens the <details> holding its target, if
  // closed, and gives the target the focus.
  function openLinkTarget(event, selector) {
    const link = event.target.closest(selector);
    if (!link) return;
    const target = document.getElementById(link.getAttribute("href").slice(1));
    if (!target) return;
    event.preventDefault();
    const details = target.closest("details");
    if (details) details.open = true;
    target.focus();
  }

  // A link of the list takes the reader to the card, opening its statement's citations if
  // they are closed, and gives it the focus.
  function followReviewLinks(section) {
    section.addEventListener("click", function (event) {
      openLinkTarget(event, "a");
    });
  }

  // compare_archive found the page judged differently in its capture from when it was cited.
  function changedNotice(citation) {
    const box = el("div", "changed");
    const title = el("h4", "changed-title");
    const icon = el("span", "changed-icon", "!");
    icon.setAttribute("aria-hidden", "true");
    title.appendChild(icon);
    title.appendChild(document.createTextNode("Changed since cited"));
    box.appendChild(title);
    const then = citation.archived_verdict;
    box.appendChild(
      el("p", "changed-lede", "The page no longer says what it said when it was cited.")
    );
    if (!then) return box;
    const list = el("dl", "compare");
    const now = el("p", "side-source", "The live page, today.");
    list.appendChild(compareSide("Now", citation, now));
    const from = el("p", "side-source");
    from.appendChild(document.createTextNode("The "));
    from.appendChild(archiveLink(then.archive_url, then.archived_at));
    from.appendChild(document.createTextNode("."));
    list.appendChild(compareSide("When cited", then, from));
    box.appendChild(list);
    return box;
  }

  function unchangedLine(citation) {
    const line = el("p", "detail unchanged", "Unchanged since cited");
    const then = citation.archived_verdict;
    if (then) {
      line.appendChild(document.createTextNode(" ("));
      line.appendChild(archiveLink(then.archive_url, then.archived_at));
      line.appendChild(document.createTextNode(")"));
    }
    return line;
  }

  // The languages the claim and the page were identified in, by name ("Russian"; "claim in
  // English, page in Russian"): which judge could read the pair depends on them.
  function languageName(code) {
    try {
      return new Intl.DisplayNames(["en"], { type: "language" }).of(code) || code;
    } catch (ignored) {
      return code;
    }
  }

  function languagesText(citation) {
    const claim = citation.claim_language;
    const page = citation.page_language;
    if (!claim && !page) return null;
    if (claim === page || !claim || !page) return languageName(claim || page);
    return "claim in " + languageName(claim) + ", page in " + languageName(page);
  }

  // A rule's detail ("exact check: certainty", "quote rule: values: …") is an internal name:
  // labelled as the rule that decided, as the CLI and the batch report do (verdict_words.py).
  function detailWords(detail) {
    const quoteRule = /^quote rule: ([^:]+)(?::\s*([\s\S]+))?/.exec(detail);
    if (quoteRule) {
      return "Decided by rule: quote rule “" + quoteRule[1] + "”" +
        (quoteRule[2] ? " (" + quoteRule[2] + ")" : "");
    }
    const check = /^exact check: ([^\s;,.]+)/.exec(detail);
    return check ? "Decided by rule: exact check “" + check[1] + "”" : detail;
  }

  function card(citation, index) {
    const item = el("li", "card card-" + citation.label);
    if (citation.changed_since_cited === true) item.classList.add("card-changed");
    const title = el("h3", "card-title");
    title.appendChild(el("span", "visually-hidden", "Citation " + (index + 1) + ": "));
    const link = el("a");
    link.appendChild(breakableUrl(citation.url));
    link.href = citation.url;
    link.rel = "noopener noreferrer nofollow";
    link.target = "_blank";
    title.appendChild(link);
    item.appendChild(title);
    if (citation.needs_review === true) {
      item.classList.add("card-review");
      item.appendChild(reviewNote(citation));
    }
    if (citation.reason === "archived_copy") item.appendChild(archivedNote(citation));
    if (citation.could_not_read) item.appendChild(wallNote(citation));
    if (citation.changed_since_cited === true) item.appendChild(changedNotice(citation));

    const facts = el("dl", "facts");
    row(facts, "Label", badge(citation.label));
    row(facts, "Reason", citation.reason);
    row(facts, "Final URL", citation.final_url ? breakableUrl(citation.final_url) : null);
    row(facts, "Original status", citation.original_status);
    row(facts, "Confidence", typeof citation.confidence === "number" ? citation.confidence.toFixed(2) : null);
    if (citation.judge) row(facts, "Judge", citation.judge);
    const languages = languagesText(citation);
    if (languages) row(facts, "Language", languages);
    item.appendChild(facts);

    if (citation.evidence_quote) item.appendChild(evidenceBlock(citation));
    else if (citation.detail) item.appendChild(el("p", "detail", detailWords(citation.detail)));
    if (citation.changed_since_cited === false) item.appendChild(unchangedLine(citation));
    if (citation.archive_lookup) {
      item.appendChild(el("p", "detail archive-lookup", "Archive: " + citation.archive_lookup));
    }
    return item;
  }

  async function errorMessage(response) {
    try {
      const body = await response.json();
      if (body && typeof body.detail === "string") return body.detail;
    } catch (ignored) {
      // not JSON: fall through to the status line
    }
    return "The service answered " + response.status + " " + response.statusText;
  }

  // --- one form's busy and error handling, shared by both modes ---------------------------

  function formUi(prefix) {
    const id = function (name) {
      return document.getElementById(prefix ? prefix + "-" + name : name);
    };
    return {
      submit: id("submit"),
      status: id("status"),
      error: id("error"),
      results: id("results"),
    };
  }

  function showError(ui, message) {
    // An error replaces the previous results: they answered another request.
    ui.results.hidden = true;
    ui.error.textContent = message;
    ui.error.hidden = false;
    // The message may sit below the fold (after a long form): bring it into view and give it
    // the focus, so it is seen and read out; Tab goes on from there.
    ui.error.tabIndex = -1;
    ui.error.scrollIntoView({ block: "center" });
    ui.error.focus({ preventScroll: true });
  }

  // --- a field the user must fix ---------------------------------------------------------
  // The field itself is marked (aria-invalid, and a thicker red border), its message sits right
  // below it and is named first in its aria-describedby (so it is read out with the field), and
  // the field takes the focus: the user lands where the fix goes.

  function problemNote(input) {
    return document.getElementById(input.id + "-problem");
  }

  function describedBy(input, id, on) {
    const ids = (input.getAttribute("aria-describedby") || "").split(/\s+/).filter(function (name) {
      return name && name !== id;
    });
    if (on) ids.unshift(id);
    if (ids.length) input.setAttribute("aria-describedby", ids.join(" "));
    else input.removeAttribute("aria-describedby");
  }

  function markInvalid(ui, input, message) {
    // The request is not sent: results of an earlier one would answer another request.
    ui.results.hidden = true;
    const note = problemNote(input);
    note.textContent = message;
    note.hidden = false;
    input.setAttribute("aria-invalid", "true");
    describedBy(input, note.id, true);
    input.scrollIntoView({ block: "center" });
    input.focus({ preventScroll: true });
  }

  function clearInvalid(input) {
    const note = problemNote(input);
    note.hidden = true;
    note.textContent = "";
    input.removeAttribute("aria-invalid");
    describedBy(input, note.id, false);
  }

  // Editing a marked field takes its mark away: the message was about what it held before.
  function watchFields(inputs) {
    inputs.forEach(function (input) {
      input.addEventListener("input", function () {
        if (input.getAttribute("aria-invalid") === "true") clearInvalid(input);
      });
    });
  }

  // What the service takes: an absolute http(s) URL with a host.
  function isHttpUrl(text) {
    try {
      const url = new URL(text);
      return (url.protocol === "http:" || url.protocol === "https:") && Boolean(url.hostname);
    } catch (ignored) {
      return false;
    }
  }

  // POST `payload` to `path`; `render` gets the JSON of a 2xx answer.
  async function post(ui, path, payload, busyText, render) {
    const headers = { "Content-Type": "application/json" };
    if (keyInput.value) headers.Authorization = "Bearer " + keyInput.value;
    ui.submit.disabled = true;
    ui.status.textContent = busyText;
    try {
      const response = await fetch(path, {
        method: "POST",
        headers: headers,
        body: JSON.stringify(payload),
      });
      if (!response.ok) {
        ui.status.textContent = "";
        showError(ui, await errorMessage(response));
        return;
      }
      render(await response.json());
      ui.status.textContent = "Done.";
    } catch (failure) {
      ui.status.textContent = "";
      showError(ui, "Could not reach the service: " + failure.message);
    } finally {
      ui.submit.disabled = false;
    }
  }

  // "Cited on" and "Compare with the archived copy": the comparison needs the date, so its
  // checkbox is disabled (and unchecked) while the date is empty, and its hint says so.
  function archiveOptions(dateId, compareId) {
    const date = document.getElementById(dateId);
    const compare = document.getElementById(compareId);
    const hint = document.getElementById(compareId + "-help");

    function sync() {
      const dated = Boolean(date.value);
      compare.disabled = !dated;
      if (!dated) compare.checked = false;
      hint.textContent = dated
        ? "Also judge each live page's archived copy from that day, and say whether the page " +
          "changed since it was cited."
        : "Enter the “Cited on” date first.";
    }

    date.addEventListener("input", sync);
    date.addEventListener("change", sync);
    sync();
    return {
      date: date,
      // A date typed in part (the field then has no value): say so instead of ignoring it.
      problem: function () {
        return date.validity && date.validity.badInput
          ? "Enter the whole “Cited on” date, or clear it."
          : null;
      },
      addTo: function (payload) {
        if (date.value) {
          payload.cited_at = date.value;
          if (compare.checked) payload.compare_archive = true;
        }
        return payload;
      },
    };
  }

  // A URL box does not wrap (app.css): once left, it shows the start of each URL again, not
  // the end where the caret was.
  ["urls", "answer-citations"].forEach(function (id) {
    const box = document.getElementById(id);
    box.addEventListener("blur", function () {
      box.scrollLeft = 0;
    });
  });

  // --- mode switch: WAI-ARIA tabs, automatic activation ------------------------------------

  const tabs = Array.from(document.querySelectorAll('[role="tab"]'));

  function selectTab(selected, focus) {
    tabs.forEach(function (tab) {
      const on = tab === selected;
      tab.setAttribute("aria-selected", on ? "true" : "false");
      tab.tabIndex = on ? 0 : -1;
      document.getElementById(tab.getAttribute("aria-controls")).hidden = !on;
    });
    if (focus) selected.focus();
  }

  tabs.forEach(function (tab, index) {
    tab.addEventListener("click", function () {
      selectTab(tab, true);
    });
    tab.addEventListener("keydown", function (event) {
      let next = null;
      if (event.key === "ArrowRight") next = tabs[(index + 1) % tabs.length];
      else if (event.key === "ArrowLeft") next = tabs[(index - 1 + tabs.length) % tabs.length];
      else if (event.key === "Home") next = tabs[0];
      else if (event.key === "End") next = tabs[tabs.length - 1];
      if (next) {
        event.preventDefault();
        selectTab(next, true);
      }
    });
  });

  // --- one claim: /verify ------------------------------------------------------------------

  (function () {
    const form = document.getElementById("verify-form");
    const claimInput = document.getElementById("claim");
    const urlsInput = document.getElementById("urls");
    const archive = archiveOptions("cited-at", "compare-archive");
    const ui = formUi("");
    const heading = document.getElementById("results-heading");
    const overallClaim = document.getElementById("overall-claim");
    const cards = document.getElementById("citations");
    const reviewFirst = document.getElementById("review-first");
    followReviewLinks(reviewFirst);

    function render(result) {
      // Looked up each time: the badge is replaced by every result.
      const fresh = badge(result.overall);
      document.getElementById("overall").replaceWith(fresh);
      fresh.id = "overall";
      overallClaim.textContent = "Claim: " + result.claim;
      cards.replaceChildren(
        ...result.citations.map(function (citation, index) {
          const node = card(citation, index);
          node.id = "citation-" + (index + 1);
          node.tabIndex = -1;
          return node;
        })
      );
      renderReviewFirst(
        reviewFirst,
        result.citations.map(function (citation, index) {
          return { citation: citation, name: citation.url, target: "citation-" + (index + 1) };
        })
      );
      ui.results.hidden = false;
      heading.focus();
    }

    const fields = [claimInput, urlsInput, archive.date];
    watchFields(fields);

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      ui.error.hidden = true;
      fields.forEach(clearInvalid);
      const claim = claimInput.value.trim();
      const urls = urlsInput.value.split(/\s+/).filter(Boolean);
      if (!claim) {
        markInvalid(ui, claimInput, "Enter the claim.");
        return;
      }
      if (urls.length === 0) {
        markInvalid(ui, urlsInput, "Enter at least one URL.");
        return;
      }
      const notUrl = urls.find(function (url) {
        return !isHttpUrl(url);
      });
      if (notUrl !== undefined) {
        markInvalid(
          ui,
          urlsInput,
          "“" + notUrl + "” is not an http(s) URL. Enter one URL per line, each starting with " +
            "http:// or https://."
        );
        return;
      }
      const dateProblem = archive.problem();
      if (dateProblem) {
        markInvalid(ui, archive.date, dateProblem);
        return;
      }
      const busy = "Verifying " + urls.length + (urls.length === 1 ? " URL…" : " URLs…");
      post(ui, "/verify", archive.addTo({ claim: claim, urls: urls }), busy, render);
    });
  })();

  // --- whole answer: /check-answer ---------------------------------------------------------

  // [{marker, parts: [{citation, index} | {problem}]}] for one statement. Each marker in the
  // response names the URLs it resolved to and its problems (the parser did that work).
  function resolveMarkers(statement) {
    const citations = statement.citations || [];
    return (statement.markers || []).map(function (marker) {
      const parts = [];
      (marker.urls || []).forEach(function (url) {
        const index = citations.findIndex(function (citation) {
          return citation.url === url;
        });
        if (index >= 0) parts.push({ citation: citations[index], index: index });
      });
      (marker.problems || []).forEach(function (problem) {
        parts.push({ problem: problem });
      });
      return { marker: marker.text, parts: parts };
    });
  }

  function markerLabel(parts, fallback) {
    const labels = parts.map(function (part) {
      return part.problem ? "unresolved" : part.citation.label;
    });
    if (!labels.length) return fallback;
    return labels.every(function (label) {
      return label === labels[0];
    })
      ? labels[0]
      : "mixed";
  }

  // A marker as a link to what it cites (the citation's card, or the problem), in a <mark>
  // coloured by verdict, with an icon and the verdict in words for screen readers.
  function markerLink(resolved, statementId, fallback) {
    const label = markerLabel(resolved.parts, fallback);
    const first = resolved.parts[0];
    const link = el("a", "marker marker-" + label);
    if (first && first.citation) link.href = "#" + statementId + "-c" + (first.index + 1);
    else if (first && first.problem) link.href = "#" + statementId + "-problems";
    else link.href = "#" + statementId;
    const mark = el("mark", null, resolved.marker);
    const icon = el("span", "marker-icon", ICON[label] || "");
    icon.setAttribute("aria-hidden", "true");
    mark.appendChild(icon);
    let words = LABEL_TEXT[label] || label;
    if (label === "mixed") {
      words = resolved.parts
        .map(function (part) {
          return part.problem ? "unresolved" : LABEL_TEXT[part.citation.label] || part.citation.label;
        })
        .join(", ");
    }
    mark.appendChild(el("span", "visually-hidden", " " + words));
    link.appendChild(mark);
    link.title = resolved.parts
      .map(function (part) {
        return part.problem ? part.problem : part.citation.url + ": " + (LABEL_TEXT[part.citation.label] || part.citation.label);
      })
      .join("\n") || LABEL_TEXT[label] || label;
    return link;
  }

  // The statement as written, each marker replaced by its link; markers not found in the text
  // (whitespace written differently) follow it.
  function statementText(statement, resolved, statementId) {
    const paragraph = el("p", "statement-text");
    const text = statement.text;
    let at = 0;
    const rest = [];
    resolved.forEach(function (item) {
      const written = item.marker.trim().split(/\s+/).join(" ");
      const found = text.indexOf(written, at);
      const link = markerLink(item, statementId, statement.overall);
      if (found < 0) {
        rest.push(link);
        return;
      }
      paragraph.appendChild(document.createTextNode(text.slice(at, found)));
      paragraph.appendChild(link);
      at = found + written.length;
    });
    paragraph.appendChild(document.createTextNode(text.slice(at)));
    rest.forEach(function (link) {
      paragraph.appendChild(document.createTextNode(" "));
      paragraph.appendChild(link);
    });
    return paragraph;
  }

  function citationSummary(citations) {
    const counts = {};
    citations.forEach(function (citation) {
      counts[citation.label] = (counts[citation.label] || 0) + 1;
    });
    const parts = Object.keys(counts).map(function (label) {
      return counts[label] + " " + (LABEL_TEXT[label] || label);
    });
    let text = plural(citations.length, "citation", "citations") + ": " + parts.join(", ");
    const archived = citations.filter(function (citation) {
      return citation.reason === "archived_copy";
    }).length;
    const changed = citations.filter(function (citation) {
      return citation.changed_since_cited === true;
    }).length;
    if (archived) text += " · " + archived + " judged on an archived copy";
    if (changed) text += " · " + changed + " changed since cited";
    return text;
  }

  function percent(value) {
    return typeof value === "number" ? Math.round(value * 100) + "%" : "n/a";
  }

  function statementItem(statement, index) {
    const id = "statement-" + (index + 1);
    const item = el("li", "statement statement-" + statement.overall);
    item.id = id;
    item.tabIndex = -1;
    const head = el("p", "statement-head");
    head.appendChild(el("span", "visually-hidden", "Statement " + (index + 1) + ": "));
    head.appendChild(badge(statement.overall));
    item.appendChild(head);
    const resolved = resolveMarkers(statement);
    item.appendChild(statementText(statement, resolved, id));

    const problems = statement.problems || [];
    if (problems.length) {
      const list = el("ul", "problems");
      list.id = id + "-problems";
      list.tabIndex = -1;
      list.setAttribute("aria-label", "Problems");
      problems.forEach(function (problem) {
        const line = el("li");
        const icon = el("span", "problem-icon", ICON.unresolved);
        icon.setAttribute("aria-hidden", "true");
        line.appendChild(icon);
        line.appendChild(document.createTextNode(" " + problem));
        list.appendChild(line);
      });
      item.appendChild(list);
    }
    if (statement.overall === "uncited") {
      item.appendChild(el("p", "detail", "Not checked: this statement cites no source."));
    }
    const facts = statement.facts || [];
    if (facts.length) {
      // No citation states it alone: each fact with the citation that states it, and its quote.
      const list = el("ul", "facts");
      list.setAttribute("aria-label", "Its facts, each read on its citations");
      facts.forEach(function (fact) {
        const line = el("li", "fact fact-" + fact.label);
        line.appendChild(badge(fact.label));
        line.appendChild(document.createTextNode(" " + fact.text));
        if (fact.url) line.appendChild(el("span", "detail", " — " + fact.url));
        if (fact.evidence_quote) line.appendChild(el("blockquote", "quote", fact.evidence_quote));
        list.appendChild(line);
      });
      item.appendChild(list);
    }
    (statement.misattributed || []).forEach(function (other) {
      const note = el("p", "misattributed");
      note.appendChild(el("strong", null, "Misattributed: "));
      note.appendChild(
        document.createTextNode(other.source + " states it (" + other.url + "), not the source it cites.")
      );
      item.appendChild(note);
      if (other.evidence_quote) item.appendChild(el("blockquote", "quote", other.evidence_quote));
    });
    const citations = statement.citations || [];
    if (citations.length) {
      const details = el("details", "statement-citations");
      details.appendChild(el("summary", null, citationSummary(citations)));
      const list = el("ol", "cards");
      citations.forEach(function (citation, at) {
        const node = card(citation, at);
        node.id = id + "-c" + (at + 1);
        node.tabIndex = -1;
        list.appendChild(node);
      });
      details.appendChild(list);
      item.appendChild(details);
    }
    return item;
  }

  (function () {
    const form = document.getElementById("answer-form");
    const answerInput = document.getElementById("answer");
    const citationsInput = document.getElementById("answer-citations");
    const archive = archiveOptions("answer-cited-at", "answer-compare-archive");
    const ui = formUi("answer");
    const heading = document.getElementById("answer-results-heading");
    const summary = document.getElementById("answer-summary");
    const counts = document.getElementById("answer-counts");
    const statements = document.getElementById("statements");
    const reviewFirst = document.getElementById("answer-review-first");
    followReviewLinks(reviewFirst);

    function render(result) {
      summary.replaceChildren();
      summary.appendChild(el("span", "summary-name", "Citation precision: "));
      if (typeof result.citation_precision === "number") {
        summary.appendChild(el("strong", null, Math.round(result.citation_precision * 100) + "%"));
        summary.appendChild(
          document.createTextNode(" (" + result.supported_citations + "/" + result.citations + " citations supported)")
        );
      } else {
        summary.appendChild(el("strong", null, "none"));
        summary.appendChild(document.createTextNode(" (no citation could be checked)"));
      }
      summary.appendChild(el("span", "summary-name", " · Citation recall: "));
      summary.appendChild(el("strong", null, percent(result.citation_recall)));
      summary.appendChild(
        document.createTextNode(" (" + result.supported + "/" + result.recall_statements + " statements supported)")
      );
      summary.appendChild(el("span", "summary-name", " · Precision (Liu et al.): "));
      summary.appendChild(el("strong", null, percent(result.citation_precision_liu)));
      if (result.misattributed) {
        summary.appendChild(
          document.createTextNode(" · " + plural(result.misattributed, "statement", "statements") + " misattributed")
        );
      }
      summary.appendChild(
        document.createTextNode(
          " · " + plural(result.statements.length, "statement", "statements") + " · " +
            plural(result.unique_urls, "page", "pages") + " fetched"
        )
      );
      counts.replaceChildren(
        ...COUNT_ORDER.map(function (label) {
          const item = el("li", "count count-" + label);
          item.appendChild(el("strong", null, result[label]));
          item.appendChild(document.createTextNode(" " + LABEL_TEXT[label]));
          return item;
        })
      );
      statements.replaceChildren(...result.statements.map(statementItem));
      const entries = [];
      result.statements.forEach(function (statement, index) {
        (statement.citations || []).forEach(function (citation, at) {
          entries.push({
            citation: citation,
            name: "Statement " + (index + 1) + ": " + citation.url,
            target: "statement-" + (index + 1) + "-c" + (at + 1),
          });
        });
      });
      renderReviewFirst(reviewFirst, entries);
      ui.results.hidden = false;
      heading.focus();
    }

    // A marker takes the reader to what it cites, opening the citations if they are closed.
    statements.addEventListener("click", function (event) {
      openLinkTarget(event, "a.marker");
    });

    const fields = [answerInput, archive.date];
    watchFields(fields);

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      ui.error.hidden = true;
      fields.forEach(clearInvalid);
      const answer = answerInput.value;
      // Citations that are not http(s) URLs are the service's to report, as problems of the
      // statements that cite them.
      const citations = citationsInput.value.split(/\s+/).filter(Boolean);
      if (!answer.trim()) {
        markInvalid(ui, answerInput, "Enter the answer.");
        return;
      }
      const dateProblem = archive.problem();
      if (dateProblem) {
        markInvalid(ui, archive.date, dateProblem);
        return;
      }
      const payload = { answer: answer };
      if (citations.length) payload.citations = citations;
      post(ui, "/check-answer", archive.addTo(payload), "Checking the answer…", render);
    });
  })();
})();
