// The sandbox's technology catalog. Names deliberately include spaces, dots, '+', '/', '&', an apostrophe
// and a non-ASCII letter so clients must URL-encode path segments properly. 'Netscape Enterprise Server'
// has weight 0, so its count is always 0 (§2.7 "A count may be 0"). 'Cloudflare' is listed in two
// categories, as real catalogs do; clients must not assume a name appears once.

export interface TechDef {
  name: string;
  categories: string[];
  /** Relative chance of being picked within its primary category; 0 means never detected. */
  weight: number;
  /** Shown as the profile's `platform` when detected (§2.1 "a platform the service classifies"). */
  platform?: boolean;
}

/** How many technologies a host gets from each category: [chance the category is present, max picks]. */
export const CATEGORY_PICKS: Record<string, readonly [number, number]> = {
  cms: [0.45, 1],
  ecommerce: [0.2, 2],
  analytics: [0.7, 3],
  'javascript-frameworks': [0.65, 3],
  'web-servers': [0.85, 1],
  cdn: [0.5, 2],
  'programming-languages': [0.55, 2],
  'network-protocols': [0.3, 2],
  security: [0.35, 2],
  marketing: [0.3, 2],
  payments: [0.15, 2],
};

const t = (name: string, category: string, weight: number, extra: Partial<TechDef> = {}): TechDef => ({
  name,
  categories: [category],
  weight,
  ...extra,
});

export const TECHNOLOGIES: readonly TechDef[] = [
  t('WordPress', 'cms', 40, { platform: true }),
  t('Drupal', 'cms', 6, { platform: true }),
  t('Joomla', 'cms', 4, { platform: true }),
  t('Ghost', 'cms', 2, { platform: true }),
  t('TYPO3', 'cms', 2),
  t('Contentful', 'cms', 3),
  t('Webflow', 'cms', 5, { platform: true }),
  t('Wix', 'cms', 8, { platform: true }),
  t('Squarespace', 'cms', 7, { platform: true }),
  t('Shopify', 'ecommerce', 20, { platform: true }),
  t('WooCommerce', 'ecommerce', 14, { platform: true }),
  t('Magento', 'ecommerce', 6, { platform: true }),
  t('BigCommerce', 'ecommerce', 3, { platform: true }),
  t('PrestaShop', 'ecommerce', 3, { platform: true }),
  t('Salesforce Commerce Cloud', 'ecommerce', 2),
  t('Shopware', 'ecommerce', 2, { platform: true }),
  t('Google Analytics', 'analytics', 40),
  t('Google Tag Manager', 'analytics', 30),
  t('Matomo', 'analytics', 5),
  t('Hotjar', 'analytics', 8),
  t('Plausible', 'analytics', 2),
  t('Mixpanel', 'analytics', 3),
  t('Segment', 'analytics', 4),
  t('Adobe Analytics', 'analytics', 3),
  t('Yandex.Metrika', 'analytics', 2),
  t('Élan Analytics', 'analytics', 1),
  t('React', 'javascript-frameworks', 25),
  t('Vue.js', 'javascript-frameworks', 12),
  t('Angular', 'javascript-frameworks', 6),
  t('Next.js', 'javascript-frameworks', 10),
  t('Nuxt.js', 'javascript-frameworks', 4),
  t('Svelte', 'javascript-frameworks', 2),
  t('jQuery', 'javascript-frameworks', 35),
  t('Ember.js', 'javascript-frameworks', 1),
  t('Alpine.js', 'javascript-frameworks', 2),
  t('Nginx', 'web-servers', 35),
  t('Apache HTTP Server', 'web-servers', 25),
  t('Microsoft IIS', 'web-servers', 6),
  t('LiteSpeed', 'web-servers', 8),
  t('Caddy', 'web-servers', 2),
  t('OpenResty', 'web-servers', 3),
  t('Netscape Enterprise Server', 'web-servers', 0),
  { name: 'Cloudflare', categories: ['cdn', 'security'], weight: 30 },
  t('Fastly', 'cdn', 6),
  t('Akamai', 'cdn', 6),
  t('Amazon CloudFront', 'cdn', 10),
  t('AT&T CDN', 'cdn', 1),
  t('jsDelivr', 'cdn', 8),
  t('Bunny CDN', 'cdn', 2),
  t('PHP', 'programming-languages', 30),
  t('Node.js', 'programming-languages', 12),
  t('Ruby', 'programming-languages', 4),
  t('Python', 'programming-languages', 5),
  t('ASP.NET', 'programming-languages', 7),
  t('Java', 'programming-languages', 5),
  t('C++ Runtime', 'programming-languages', 1),
  t('HTTP/3', 'network-protocols', 20),
  t('TCP/IP Stack', 'network-protocols', 3),
  t('IPv6', 'network-protocols', 15),
  t("Let's Encrypt", 'security', 20),
  t('reCAPTCHA', 'security', 10),
  t('HSTS', 'security', 15),
  t('Sucuri', 'security', 2),
  t('HubSpot', 'marketing', 8),
  t('Mailchimp', 'marketing', 8),
  t('Marketo', 'marketing', 3),
  t('Klaviyo', 'marketing', 4),
  t('Intercom', 'marketing', 4),
  t('Stripe', 'payments', 10),
  t('PayPal', 'payments', 12),
  t('Klarna', 'payments', 4),
  t('Adyen', 'payments', 2),
  t('Apple Pay', 'payments', 5),
];

/** Category slugs in catalog order. */
export const CATEGORIES: readonly string[] = Object.keys(CATEGORY_PICKS);

/** Technologies whose primary (first) category is `category`. */
export function techsInPrimary(category: string): TechDef[] {
  return TECHNOLOGIES.filter((tech) => tech.categories[0] === category);
}

/** Technologies listed under `category` in the catalog (primary or secondary). */
export function techsListedIn(category: string): TechDef[] {
  return TECHNOLOGIES.filter((tech) => tech.categories.includes(category));
}

const COLLATOR = new Intl.Collator('en', { sensitivity: 'base' });

/** Alphabetical order as the service sorts technology names: English collation (accents and case folded), then by code unit. */
export function compareNames(a: string, b: string): number {
  return COLLATOR.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}
