// Small DOM helpers. Everything that comes from other people (names, chat) goes through text
// nodes, never through innerHTML.

const SVG_NS = "http://www.w3.org/2000/svg";

/** @typedef {Node | string | number | null | undefined | false} Leaf what a child may be: null, undefined and false are left out */
/** @typedef {Leaf | Leaf[] | Leaf[][]} Child a child or lists of them, flattened */

/**
 * An element's attributes and more: `class` (a string, or a list whose false entries are
 * dropped), `text`, `on` (event listeners by type), `dataset`, `style`; `disabled`, `checked`,
 * `selected` and `hidden` when true; `value`; any other key is an attribute. Null, undefined and
 * false leave a key out.
 * @typedef {{
 *   class?: string | (string | false | null | undefined)[],
 *   text?: string,
 *   on?: Record<string, (event: any) => unknown>,
 *   dataset?: Record<string, string>,
 *   style?: Partial<CSSStyleDeclaration>,
 *   [attribute: string]: unknown,
 * }} Props
 */

/**
 * @param {HTMLElement} el
 * @param {Props | null | undefined} props
 */
function apply(el, props) {
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") el.setAttribute("class", Array.isArray(value) ? value.filter(Boolean).join(" ") : String(value));
    else if (key === "text") el.textContent = String(value);
    else if (key === "on") listen(el, /** @type {Record<string, EventListener>} */ (value));
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style") Object.assign(el.style, value);
    else if (key === "disabled" || key === "checked" || key === "selected" || key === "hidden") Object.assign(el, { [key]: true });
    else if (key === "value") Object.assign(el, { value: String(value) });
    else el.setAttribute(key, value === true ? "" : String(value));
  }
}

/**
 * @param {Element} el
 * @param {Record<string, EventListener>} listeners
 */
function listen(el, listeners) {
  for (const [type, fn] of Object.entries(listeners)) el.addEventListener(type, fn);
}

/**
 * @param {Element} el
 * @param {Child[]} children
 */
function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/**
 * An HTML element: `h("button", {class: "x", on: {click}}, "text", child)`.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Props | null} [props]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  apply(el, props);
  append(el, children);
  return el;
}

/**
 * An SVG element; every prop but `text`, `on` and `dataset` is an attribute.
 * @template {keyof SVGElementTagNameMap} K
 * @param {K} tag
 * @param {Props | null} [props]
 * @param {...Child} children
 * @returns {SVGElementTagNameMap[K]}
 */
export function s(tag, props, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") el.textContent = String(value);
    else if (key === "on") listen(el, /** @type {Record<string, EventListener>} */ (value));
    else if (key === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

/**
 * Appends children, skipping null, undefined and false.
 * @template {Element} E
 * @param {E} el
 * @param {...Child} children
 * @returns {E}
 */
export function add(el, ...children) {
  append(el, children);
  return el;
}

/**
 * Replaces an element's children.
 * @template {Element} E
 * @param {E} el
 * @param {...Child} children
 * @returns {E}
 */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/**
 * Re-renders `container` with `render()` and puts the focus back on the element with the same
 * `data-key`, so that keyboard users keep their place when a panel is redrawn.
 * @param {HTMLElement} container
 * @param {() => Child} render
 */
export function rerender(container, render) {
  const active = document.activeElement;
  const key = (active instanceof HTMLElement || active instanceof SVGElement) && container.contains(active) ? active.dataset.key : null;
  fill(container, render());
  if (key) {
    const again = container.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (again instanceof HTMLElement || again instanceof SVGElement) again.focus();
  }
}

/**
 * The element with `id`, which the page is known to have.
 * @param {string} id
 * @returns {HTMLElement}
 */
export function byId(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`no element #${id}`);
  return el;
}
