// Small DOM helpers. Everything that comes from other people (names, chat) goes through text
// nodes, never through innerHTML.

const SVG_NS = "http://www.w3.org/2000/svg";

function apply(el, props) {
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") el.setAttribute("class", Array.isArray(value) ? value.filter(Boolean).join(" ") : value);
    else if (key === "text") el.textContent = value;
    else if (key === "on") for (const [type, fn] of Object.entries(value)) el.addEventListener(type, fn);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style") Object.assign(el.style, value);
    else if (key === "disabled" || key === "checked" || key === "selected" || key === "hidden") el[key] = true;
    else if (key === "value") el.value = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** An HTML element: `h("button", {class: "x", on: {click}}, "text", child)`. */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  apply(el, props);
  append(el, children);
  return el;
}

/** An SVG element. */
export function s(tag, props, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") el.textContent = value;
    else if (key === "on") for (const [type, fn] of Object.entries(value)) el.addEventListener(type, fn);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

/** Appends children, skipping null, undefined and false. */
export function add(el, ...children) {
  append(el, children);
  return el;
}

/** Replaces an element's children. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/**
 * Re-renders `container` with `render()` and puts the focus back on the element with the same
 * `data-key`, so that keyboard users keep their place when a panel is redrawn.
 */
export function rerender(container, render) {
  const active = document.activeElement;
  const key = active && container.contains(active) && active.dataset ? active.dataset.key : null;
  fill(container, render());
  if (key) {
    const again = container.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (again) again.focus();
  }
}
