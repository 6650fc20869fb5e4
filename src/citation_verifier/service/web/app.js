"use strict";
// The citation-verifier page: two modes in tabs. "One claim" posts a claim and its URLs to
// /verify; "Whole answer" posts an LLM answer to /check-answer and shows each statement with its
// markers coloured by verdict. Everything is rendered with textContent: page text and answer
// text are untrusted and never parsed as HTML.

(function () {
  const keyInput = document.getElementById("api-key");

  const LABEL_TEXT = {
    supported: "supported",
    contradicted: "contradicted",
    not_found: "not found",
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
    unreachable: "⊘",
    unresolved: "!",
    mixed: "±",
  };
  const COUNT_ORDER = ["supported", "contradicted", "not_found", "unreachable", "uncited", "unresolved"];

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
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

  function card(citation, index) {
    const item = el("li", "card card-" + citation.label);
    const title = el("h3", "card-title");
    title.appendChild(el("span", "visually-hidden", "Citation " + (index + 1) + ": "));
    const link = el("a", null, citation.url);
    link.href = citation.url;
    link.rel = "noopener noreferrer nofollow";
    link.target = "_blank";
    title.appendChild(link);
    item.appendChild(title);

    const facts = el("dl", "facts");
    row(facts, "Label", badge(citation.label));
    row(facts, "Reason", citation.reason);
    row(facts, "Final URL", citation.final_url);
    row(facts, "Original status", citation.original_status);
    row(facts, "Confidence", typeof citation.confidence === "number" ? citation.confidence.toFixed(2) : null);
    if (citation.judge) row(facts, "Judge", citation.judge);
    item.appendChild(facts);

    if (citation.evidence_quote) item.appendChild(evidenceBlock(citation));
    else if (citation.detail) item.appendChild(el("p", "detail", citation.detail));
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
    const ui = formUi("");
    const heading = document.getElementById("results-heading");
    const overall = document.getElementById("overall");
    const overallClaim = document.getElementById("overall-claim");
    const cards = document.getElementById("citations");

    function render(result) {
      overall.replaceWith(badge(result.overall));
      const fresh = heading.querySelector(".badge");
      fresh.id = "overall";
      overallClaim.textContent = "Claim: " + result.claim;
      cards.replaceChildren(...result.citations.map(card));
      ui.results.hidden = false;
      heading.focus();
    }

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      ui.error.hidden = true;
      const claim = claimInput.value.trim();
      const urls = urlsInput.value.split(/\s+/).filter(Boolean);
      if (!claim) {
        showError(ui, "Enter the claim.");
        claimInput.focus();
        return;
      }
      if (urls.length === 0) {
        showError(ui, "Enter at least one URL.");
        urlsInput.focus();
        return;
      }
      const busy = "Verifying " + urls.length + (urls.length === 1 ? " URL…" : " URLs…");
      post(ui, "/verify", { claim: claim, urls: urls }, busy, render);
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
    return plural(citations.length, "citation", "citations") + ": " + parts.join(", ");
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
    const ui = formUi("answer");
    const heading = document.getElementById("answer-results-heading");
    const summary = document.getElementById("answer-summary");
    const counts = document.getElementById("answer-counts");
    const statements = document.getElementById("statements");

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
      ui.results.hidden = false;
      heading.focus();
    }

    // A marker takes the reader to what it cites, opening the citations if they are closed.
    statements.addEventListener("click", function (event) {
      const link = event.target.closest("a.marker");
      if (!link) return;
      const target = document.getElementById(link.getAttribute("href").slice(1));
      if (!target) return;
      event.preventDefault();
      const details = target.closest("details");
      if (details) details.open = true;
      target.focus();
    });

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      ui.error.hidden = true;
      const answer = answerInput.value;
      const citations = citationsInput.value.split(/\s+/).filter(Boolean);
      if (!answer.trim()) {
        showError(ui, "Enter the answer.");
        answerInput.focus();
        return;
      }
      const payload = { answer: answer };
      if (citations.length) payload.citations = citations;
      post(ui, "/check-answer", payload, "Checking the answer…", render);
    });
  })();
})();
