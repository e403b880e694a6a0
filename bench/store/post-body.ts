/** The product every POST in the store benchmark creates. */
export const postBody = JSON.stringify({ item_name: 'Bench bolt', item_number: 'BB', price: 2.5, quantity_on_hand: 10, is_hidden: false });
